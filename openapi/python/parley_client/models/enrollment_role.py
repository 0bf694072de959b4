from enum import StrEnum


class EnrollmentRole(StrEnum):
    STUDENT = "student"
    TEACHER = "teacher"

    def __str__(self) -> str:
        return str(self.value)
