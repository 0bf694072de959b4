from enum import StrEnum


class BlocksGroupBy(StrEnum):
    DAY = "day"
    MODULE = "module"

    def __str__(self) -> str:
        return str(self.value)
