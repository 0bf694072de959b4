from enum import StrEnum


class MemberRole(StrEnum):
    MANAGER = "manager"
    MEMBER = "member"

    def __str__(self) -> str:
        return str(self.value)
