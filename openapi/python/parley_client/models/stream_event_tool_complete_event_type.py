from enum import StrEnum


class StreamEventToolCompleteEventType(StrEnum):
    TOOL_COMPLETE = "tool_complete"

    def __str__(self) -> str:
        return str(self.value)
