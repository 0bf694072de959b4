from enum import StrEnum


class BreakerStateName(StrEnum):
    CLOSED = "closed"
    HALF_OPEN = "half_open"
    OPEN = "open"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return str(self.value)
