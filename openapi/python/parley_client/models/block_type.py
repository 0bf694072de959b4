from enum import StrEnum


class BlockType(StrEnum):
    ATTACHMENT = "attachment"
    TEXT = "text"
    THINKING = "thinking"
    TOOL_CALL = "tool_call"

    def __str__(self) -> str:
        return str(self.value)
