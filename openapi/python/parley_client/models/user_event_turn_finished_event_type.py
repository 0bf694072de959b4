from enum import StrEnum


class UserEventTurnFinishedEventType(StrEnum):
    TURN_FINISHED = "turn_finished"

    def __str__(self) -> str:
        return str(self.value)
