from enum import StrEnum


class EventName(StrEnum):
    APPROVAL_REQUESTED = "approval_requested"
    BLOCK_START = "block_start"
    BLOCK_STOP = "block_stop"
    CANCELLED = "cancelled"
    CLIENT_CALL_REQUESTED = "client_call_requested"
    COMPLETE = "complete"
    ERROR = "error"
    FALLBACK = "fallback"
    PING = "ping"
    PROMPT_STATE = "prompt_state"
    RECONNECT = "reconnect"
    RESET = "reset"
    RETRY = "retry"
    STATUS = "status"
    TEXT_DELTA = "text_delta"
    THINKING_DELTA = "thinking_delta"
    TOOL_COMPLETE = "tool_complete"
    TOOL_PROGRESS = "tool_progress"
    TOOL_START = "tool_start"

    def __str__(self) -> str:
        return str(self.value)
