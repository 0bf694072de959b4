from enum import StrEnum


class UserEventSessionCreatedEventType(StrEnum):
    SESSION_CREATED = "session_created"

    def __str__(self) -> str:
        return str(self.value)
