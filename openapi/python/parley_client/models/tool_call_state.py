from enum import StrEnum


class ToolCallState(StrEnum):
    APPROVED = "approved"
    AWAITING_APPROVAL = "awaiting_approval"
    AWAITING_CLIENT = "awaiting_client"
    CANCELED = "canceled"
    CREATED = "created"
    DENIED = "denied"
    ERROR = "error"
    RUNNING = "running"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
