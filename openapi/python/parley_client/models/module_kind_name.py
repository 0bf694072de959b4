from enum import StrEnum


class ModuleKindName(StrEnum):
    ANALYTICS = "analytics"
    PII_REDACTOR = "pii_redactor"
    SAFETY_FILTER = "safety_filter"
    WEBHOOK = "webhook"

    def __str__(self) -> str:
        return str(self.value)
