from enum import StrEnum


class UserEventTimerFiredEventType(StrEnum):
    TIMER_FIRED = "timer_fired"

    def __str__(self) -> str:
        return str(self.value)
