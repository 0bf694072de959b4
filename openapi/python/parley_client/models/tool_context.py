from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ToolContext")


@_attrs_define
class ToolContext:
    """The chat tool of the session.

    Attributes:
        definition (Any): The session's resolved configuration (organisation → tool → assignment).
        id (UUID):
        name (str):
        type_ (str): The tool's kind (e.g. `chat`).
    """

    definition: Any
    id: UUID
    name: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition

        id = str(self.id)

        name = self.name

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "definition": definition,
                "id": id,
                "name": name,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        definition = d.pop("definition")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        type_ = d.pop("type")

        tool_context = cls(
            definition=definition,
            id=id,
            name=name,
            type_=type_,
        )

        tool_context.additional_properties = d
        return tool_context

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
