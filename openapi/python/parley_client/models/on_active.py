from enum import StrEnum


class OnActive(StrEnum):
    ENQUEUE = "enqueue"
    INTERRUPT = "interrupt"
    REJECT = "reject"

    def __str__(self) -> str:
        return str(self.value)
