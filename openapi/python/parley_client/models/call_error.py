from enum import StrEnum


class CallError(StrEnum):
    BROKEN_STREAM = "broken_stream"
    NO_FIRST_TOKEN = "no_first_token"
    RATE_LIMITED = "rate_limited"
    REFUSED = "refused"
    SERVER_ERROR = "server_error"
    STALLED = "stalled"
    UNREACHABLE = "unreachable"

    def __str__(self) -> str:
        return str(self.value)
