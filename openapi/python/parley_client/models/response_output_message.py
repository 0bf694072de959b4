from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.response_output_text import ResponseOutputText


T = TypeVar("T", bound="ResponseOutputMessage")


@_attrs_define
class ResponseOutputMessage:
    """An assistant message of the output.

    Attributes:
        content (list[ResponseOutputText]):
        id (str):
        role (str): Always `assistant`.
        status (str): `in_progress`, `completed` or `incomplete`.
        type_ (str): Always `message`.
    """

    content: list[ResponseOutputText]
    id: str
    role: str
    status: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = []
        for content_item_data in self.content:
            content_item = content_item_data.to_dict()
            content.append(content_item)

        id = self.id

        role = self.role

        status = self.status

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "id": id,
                "role": role,
                "status": status,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_output_text import ResponseOutputText

        d = dict(src_dict)
        content = []
        _content = d.pop("content")
        for content_item_data in _content:
            content_item = ResponseOutputText.from_dict(content_item_data)

            content.append(content_item)

        id = d.pop("id")

        role = d.pop("role")

        status = d.pop("status")

        type_ = d.pop("type")

        response_output_message = cls(
            content=content,
            id=id,
            role=role,
            status=status,
            type_=type_,
        )

        response_output_message.additional_properties = d
        return response_output_message

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
