from enum import StrEnum


class StreamEventClientCallRequestedEventType(StrEnum):
    CLIENT_CALL_REQUESTED = "client_call_requested"

    def __str__(self) -> str:
        return str(self.value)
