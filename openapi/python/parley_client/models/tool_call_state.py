from enum import StrEnum


class ToolCallState(StrEnum):
    APPROVED = "approved"
    AWAITING_APPROVAL = "awaiting_approval"
    CANCELED = "canceled"
    CREATED = "created"
    DENIED = "denied"
    ERROR = "error"
    RUNNING = "running"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
