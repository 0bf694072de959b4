from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_role import ChatRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_input_content_part import ResponseInputContentPart


T = TypeVar("T", bound="ResponseInputItem")


@_attrs_define
class ResponseInputItem:
    """One item of a response's input: a message.

    Attributes:
        content (list[ResponseInputContentPart] | str): An input message's content: a string or text parts.
        role (ChatRole): Who wrote a chat message.
        type_ (None | str | Unset): `message` (the default; other item kinds are refused).
    """

    content: list[ResponseInputContentPart] | str
    role: ChatRole
    type_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content: list[dict[str, Any]] | str
        if isinstance(self.content, list):
            content = []
            for (
                componentsschemas_response_input_content_type_1_item_data
            ) in self.content:
                componentsschemas_response_input_content_type_1_item = (
                    componentsschemas_response_input_content_type_1_item_data.to_dict()
                )
                content.append(componentsschemas_response_input_content_type_1_item)

        else:
            content = self.content

        role = self.role.value

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "role": role,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_input_content_part import ResponseInputContentPart

        d = dict(src_dict)

        def _parse_content(data: object) -> list[ResponseInputContentPart] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_response_input_content_type_1 = []
                _componentsschemas_response_input_content_type_1 = data
                for (
                    componentsschemas_response_input_content_type_1_item_data
                ) in _componentsschemas_response_input_content_type_1:
                    componentsschemas_response_input_content_type_1_item = (
                        ResponseInputContentPart.from_dict(
                            componentsschemas_response_input_content_type_1_item_data
                        )
                    )

                    componentsschemas_response_input_content_type_1.append(
                        componentsschemas_response_input_content_type_1_item
                    )

                return componentsschemas_response_input_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseInputContentPart] | str, data)

        content = _parse_content(d.pop("content"))

        role = ChatRole(d.pop("role"))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        response_input_item = cls(
            content=content,
            role=role,
            type_=type_,
        )

        response_input_item.additional_properties = d
        return response_input_item

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
