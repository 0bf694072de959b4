from enum import StrEnum


class ToolCallState(StrEnum):
    CANCELED = "canceled"
    CREATED = "created"
    ERROR = "error"
    RUNNING = "running"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
