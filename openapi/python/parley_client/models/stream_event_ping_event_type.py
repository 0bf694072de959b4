from enum import StrEnum


class StreamEventPingEventType(StrEnum):
    PING = "ping"

    def __str__(self) -> str:
        return str(self.value)
