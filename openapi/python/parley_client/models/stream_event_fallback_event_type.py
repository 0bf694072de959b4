from enum import StrEnum


class StreamEventFallbackEventType(StrEnum):
    FALLBACK = "fallback"

    def __str__(self) -> str:
        return str(self.value)
