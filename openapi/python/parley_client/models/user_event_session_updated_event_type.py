from enum import StrEnum


class UserEventSessionUpdatedEventType(StrEnum):
    SESSION_UPDATED = "session_updated"

    def __str__(self) -> str:
        return str(self.value)
