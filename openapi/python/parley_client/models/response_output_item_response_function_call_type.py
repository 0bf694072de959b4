from enum import StrEnum


class ResponseOutputItemResponseFunctionCallType(StrEnum):
    FUNCTION_CALL = "function_call"

    def __str__(self) -> str:
        return str(self.value)
