from enum import StrEnum


class FileKind(StrEnum):
    IMAGE = "image"
    PDF = "pdf"
    TEXT = "text"

    def __str__(self) -> str:
        return str(self.value)
