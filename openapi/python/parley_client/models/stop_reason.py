from enum import StrEnum


class StopReason(StrEnum):
    MAX_TOKENS = "max_tokens"

    def __str__(self) -> str:
        return str(self.value)
