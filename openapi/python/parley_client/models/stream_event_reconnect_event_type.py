from enum import StrEnum


class StreamEventReconnectEventType(StrEnum):
    RECONNECT = "reconnect"

    def __str__(self) -> str:
        return str(self.value)
