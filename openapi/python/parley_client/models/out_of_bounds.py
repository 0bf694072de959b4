from enum import StrEnum


class OutOfBounds(StrEnum):
    CLAMP = "clamp"
    REFUSE = "refuse"

    def __str__(self) -> str:
        return str(self.value)
