from enum import StrEnum


class StreamEventErrorEventType(StrEnum):
    ERROR = "error"

    def __str__(self) -> str:
        return str(self.value)
