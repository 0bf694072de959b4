from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Modifications")


@_attrs_define
class Modifications:
    """Changes a module asks for.

    Attributes:
        message_content (str | Unset): Replaces the user's message (`chat:before_ai`).
        response_content (str | Unset): Replaces the model's answer (`chat:after_ai`).
        system_prompt_additions (list[str] | Unset): Sections added to the system prompt under "Additional Guidance"
            (`chat:before_ai`).
    """

    message_content: str | Unset = UNSET
    response_content: str | Unset = UNSET
    system_prompt_additions: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_content = self.message_content

        response_content = self.response_content

        system_prompt_additions: list[str] | Unset = UNSET
        if not isinstance(self.system_prompt_additions, Unset):
            system_prompt_additions = self.system_prompt_additions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if message_content is not UNSET:
            field_dict["message_content"] = message_content
        if response_content is not UNSET:
            field_dict["response_content"] = response_content
        if system_prompt_additions is not UNSET:
            field_dict["system_prompt_additions"] = system_prompt_additions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_content = d.pop("message_content", UNSET)

        response_content = d.pop("response_content", UNSET)

        system_prompt_additions = cast(
            list[str], d.pop("system_prompt_additions", UNSET)
        )

        modifications = cls(
            message_content=message_content,
            response_content=response_content,
            system_prompt_additions=system_prompt_additions,
        )

        modifications.additional_properties = d
        return modifications

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
