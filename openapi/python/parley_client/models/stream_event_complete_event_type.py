from enum import StrEnum


class StreamEventCompleteEventType(StrEnum):
    COMPLETE = "complete"

    def __str__(self) -> str:
        return str(self.value)
