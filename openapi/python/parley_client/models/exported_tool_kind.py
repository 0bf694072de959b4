from enum import StrEnum


class ExportedToolKind(StrEnum):
    FUNCTION = "function"

    def __str__(self) -> str:
        return str(self.value)
