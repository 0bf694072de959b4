from enum import StrEnum


class UsageGroupBy(StrEnum):
    DAY = "day"
    GROUP = "group"
    MODEL = "model"
    TOOL = "tool"
    USER = "user"

    def __str__(self) -> str:
        return str(self.value)
