from enum import StrEnum


class FallbackReason(StrEnum):
    CIRCUIT_OPEN = "circuit_open"
    NO_FIRST_TOKEN = "no_first_token"
    RATE_LIMITED = "rate_limited"
    REFUSED = "refused"
    UNREACHABLE = "unreachable"
    UPSTREAM_ERROR = "upstream_error"
    USER_BREAKER = "user_breaker"

    def __str__(self) -> str:
        return str(self.value)
