from enum import StrEnum


class StreamEventThinkingDeltaEventType(StrEnum):
    THINKING_DELTA = "thinking_delta"

    def __str__(self) -> str:
        return str(self.value)
