from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.response_text_format import ResponseTextFormat


T = TypeVar("T", bound="ResponseText")


@_attrs_define
class ResponseText:
    """The response's text settings.

    Attributes:
        format_ (ResponseTextFormat): The text format: `text`, `json_object`, or `json_schema` with the schema asked
            for.
    """

    format_: ResponseTextFormat
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        format_ = self.format_.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "format": format_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_text_format import ResponseTextFormat

        d = dict(src_dict)
        format_ = ResponseTextFormat.from_dict(d.pop("format"))

        response_text = cls(
            format_=format_,
        )

        response_text.additional_properties = d
        return response_text

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
