from enum import StrEnum


class ResponseOutputItemResponseMcpCallType(StrEnum):
    MCP_CALL = "mcp_call"

    def __str__(self) -> str:
        return str(self.value)
