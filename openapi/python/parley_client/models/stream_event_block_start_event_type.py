from enum import StrEnum


class StreamEventBlockStartEventType(StrEnum):
    BLOCK_START = "block_start"

    def __str__(self) -> str:
        return str(self.value)
