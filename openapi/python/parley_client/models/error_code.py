from enum import StrEnum


class ErrorCode(StrEnum):
    INTERNAL_ERROR = "internal_error"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    TOOL_ERROR = "tool_error"
    UNAVAILABLE = "unavailable"
    UNKNOWN_MODEL = "unknown_model"
    UPSTREAM_ERROR = "upstream_error"
    UPSTREAM_STALL = "upstream_stall"

    def __str__(self) -> str:
        return str(self.value)
