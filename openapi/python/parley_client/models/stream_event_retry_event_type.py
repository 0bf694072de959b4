from enum import StrEnum


class StreamEventRetryEventType(StrEnum):
    RETRY = "retry"

    def __str__(self) -> str:
        return str(self.value)
