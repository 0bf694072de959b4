from enum import StrEnum


class OutputFormatType(StrEnum):
    JSON_OBJECT = "json_object"
    JSON_SCHEMA = "json_schema"

    def __str__(self) -> str:
        return str(self.value)
