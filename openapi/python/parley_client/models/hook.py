from enum import StrEnum


class Hook(StrEnum):
    CHATAFTER_AI = "chat:after_ai"
    CHATBEFORE_AI = "chat:before_ai"
    CHATON_MESSAGE = "chat:on_message"
    SESSIONEND = "session:end"
    SESSIONSTART = "session:start"

    def __str__(self) -> str:
        return str(self.value)
