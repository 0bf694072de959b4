from enum import StrEnum


class ServerActionName(StrEnum):
    END_SESSION = "end_session"
    SEND_MESSAGE = "send_message"

    def __str__(self) -> str:
        return str(self.value)
