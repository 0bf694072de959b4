from enum import StrEnum


class ModuleOutcome(StrEnum):
    BLOCK = "block"
    CONTINUE = "continue"
    ERROR = "error"
    MODIFY = "modify"
    TIMEOUT = "timeout"

    def __str__(self) -> str:
        return str(self.value)
