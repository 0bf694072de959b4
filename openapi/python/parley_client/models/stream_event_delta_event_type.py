from enum import StrEnum


class StreamEventDeltaEventType(StrEnum):
    TEXT_DELTA = "text_delta"

    def __str__(self) -> str:
        return str(self.value)
