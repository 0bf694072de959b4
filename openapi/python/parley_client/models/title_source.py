from enum import StrEnum


class TitleSource(StrEnum):
    MODEL = "model"
    USER = "user"
    WORDS = "words"

    def __str__(self) -> str:
        return str(self.value)
