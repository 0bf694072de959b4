from enum import StrEnum


class PayloadSourceKind(StrEnum):
    LLM = "llm"
    TOOL = "tool"

    def __str__(self) -> str:
        return str(self.value)
