from enum import StrEnum


class UserEventUserResetEventType(StrEnum):
    RESET = "reset"

    def __str__(self) -> str:
        return str(self.value)
