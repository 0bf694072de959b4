from enum import StrEnum


class StreamEventStatusEventType(StrEnum):
    STATUS = "status"

    def __str__(self) -> str:
        return str(self.value)
