from enum import StrEnum


class StreamEventPromptStateEventType(StrEnum):
    PROMPT_STATE = "prompt_state"

    def __str__(self) -> str:
        return str(self.value)
