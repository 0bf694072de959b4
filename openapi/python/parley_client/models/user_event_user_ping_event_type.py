from enum import StrEnum


class UserEventUserPingEventType(StrEnum):
    PING = "ping"

    def __str__(self) -> str:
        return str(self.value)
