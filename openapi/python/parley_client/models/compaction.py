from enum import StrEnum


class Compaction(StrEnum):
    OFF = "off"
    SUMMARIZE = "summarize"

    def __str__(self) -> str:
        return str(self.value)
