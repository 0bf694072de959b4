from enum import StrEnum


class PromptState(StrEnum):
    CANCELED = "canceled"
    COMPLETED = "completed"
    CREATED = "created"
    ERROR = "error"
    FAILED = "failed"
    IN_PROGRESS = "in_progress"
    WAITING_FOR_TOOLS = "waiting_for_tools"

    def __str__(self) -> str:
        return str(self.value)
