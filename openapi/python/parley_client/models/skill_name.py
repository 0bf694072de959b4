from enum import StrEnum


class SkillName(StrEnum):
    MATH = "math"
    TIMER = "timer"

    def __str__(self) -> str:
        return str(self.value)
