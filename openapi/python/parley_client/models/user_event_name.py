from enum import StrEnum


class UserEventName(StrEnum):
    APPROVAL_REQUESTED = "approval_requested"
    APPROVAL_RESOLVED = "approval_resolved"
    PING = "ping"
    RECONNECT = "reconnect"
    RESET = "reset"
    SESSION_CREATED = "session_created"
    SESSION_DELETED = "session_deleted"
    SESSION_UPDATED = "session_updated"
    TIMER_FIRED = "timer_fired"
    TURN_FINISHED = "turn_finished"
    TURN_STARTED = "turn_started"

    def __str__(self) -> str:
        return str(self.value)
