from enum import StrEnum


class StreamEventToolProgressEventType(StrEnum):
    TOOL_PROGRESS = "tool_progress"

    def __str__(self) -> str:
        return str(self.value)
