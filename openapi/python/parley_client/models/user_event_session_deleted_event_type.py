from enum import StrEnum


class UserEventSessionDeletedEventType(StrEnum):
    SESSION_DELETED = "session_deleted"

    def __str__(self) -> str:
        return str(self.value)
