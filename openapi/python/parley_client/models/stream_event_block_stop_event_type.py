from enum import StrEnum


class StreamEventBlockStopEventType(StrEnum):
    BLOCK_STOP = "block_stop"

    def __str__(self) -> str:
        return str(self.value)
