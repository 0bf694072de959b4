from enum import StrEnum


class HookAction(StrEnum):
    BLOCK = "block"
    CONTINUE = "continue"

    def __str__(self) -> str:
        return str(self.value)
