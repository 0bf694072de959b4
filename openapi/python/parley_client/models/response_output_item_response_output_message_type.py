from enum import StrEnum


class ResponseOutputItemResponseOutputMessageType(StrEnum):
    MESSAGE = "message"

    def __str__(self) -> str:
        return str(self.value)
