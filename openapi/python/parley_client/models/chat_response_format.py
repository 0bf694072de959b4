from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_format_type import ResponseFormatType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.json_schema_format import JsonSchemaFormat


T = TypeVar("T", bound="ChatResponseFormat")


@_attrs_define
class ChatResponseFormat:
    """A chat completion's `response_format`: `text`, `json_object`, or `json_schema` with
    `json_schema`. The answer is checked before the turn completes; one that does not fit
    is asked for once more, then the turn fails (`output_mismatch`). A model that cannot
    answer in a format is a 400 naming it.

        Attributes:
            type_ (ResponseFormatType): What a response format asks the answer to be.
            json_schema (JsonSchemaFormat | None | Unset):
    """

    type_: ResponseFormatType
    json_schema: JsonSchemaFormat | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.json_schema_format import JsonSchemaFormat

        type_ = self.type_.value

        json_schema: dict[str, Any] | None | Unset
        if isinstance(self.json_schema, Unset):
            json_schema = UNSET
        elif isinstance(self.json_schema, JsonSchemaFormat):
            json_schema = self.json_schema.to_dict()
        else:
            json_schema = self.json_schema

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if json_schema is not UNSET:
            field_dict["json_schema"] = json_schema

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.json_schema_format import JsonSchemaFormat

        d = dict(src_dict)
        type_ = ResponseFormatType(d.pop("type"))

        def _parse_json_schema(data: object) -> JsonSchemaFormat | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                json_schema_type_1 = JsonSchemaFormat.from_dict(data)

                return json_schema_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(JsonSchemaFormat | None | Unset, data)

        json_schema = _parse_json_schema(d.pop("json_schema", UNSET))

        chat_response_format = cls(
            type_=type_,
            json_schema=json_schema,
        )

        chat_response_format.additional_properties = d
        return chat_response_format

    @property
    def additional_keys(self) -> list[str]:
        return list(self.additional_properties.keys())

    def __getitem__(self, key: str) -> Any:
        return self.additional_properties[key]

    def __setitem__(self, key: str, value: Any) -> None:
        self.additional_properties[key] = value

    def __delitem__(self, key: str) -> None:
        del self.additional_properties[key]

    def __contains__(self, key: str) -> bool:
        return key in self.additional_properties
