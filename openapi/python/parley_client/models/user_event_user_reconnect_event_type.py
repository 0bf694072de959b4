from enum import StrEnum


class UserEventUserReconnectEventType(StrEnum):
    RECONNECT = "reconnect"

    def __str__(self) -> str:
        return str(self.value)
