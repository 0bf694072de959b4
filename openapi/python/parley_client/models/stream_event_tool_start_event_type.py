from enum import StrEnum


class StreamEventToolStartEventType(StrEnum):
    TOOL_START = "tool_start"

    def __str__(self) -> str:
        return str(self.value)
