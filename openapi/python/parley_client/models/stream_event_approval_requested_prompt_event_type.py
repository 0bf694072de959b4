from enum import StrEnum


class StreamEventApprovalRequestedPromptEventType(StrEnum):
    APPROVAL_REQUESTED = "approval_requested"

    def __str__(self) -> str:
        return str(self.value)
