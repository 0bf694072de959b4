from enum import StrEnum


class UserEventApprovalResolvedEventType(StrEnum):
    APPROVAL_RESOLVED = "approval_resolved"

    def __str__(self) -> str:
        return str(self.value)
