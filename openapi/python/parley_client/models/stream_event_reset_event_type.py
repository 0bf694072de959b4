from enum import StrEnum


class StreamEventResetEventType(StrEnum):
    RESET = "reset"

    def __str__(self) -> str:
        return str(self.value)
