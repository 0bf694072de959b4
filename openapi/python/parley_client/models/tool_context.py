from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.session_config import SessionConfig


T = TypeVar("T", bound="ToolContext")


@_attrs_define
class ToolContext:
    """The chat tool of the session.

    Attributes:
        definition (SessionConfig): A session's configuration: group settings (root first) → the tool's definition → the
            assignment's config, merged field by field when the session opened and frozen on it
            (a tool changed later does not change open sessions). Absent options take the
            deployment's defaults.
        id (UUID):
        name (str):
        type_ (str): The tool's kind (e.g. `chat`).
    """

    definition: SessionConfig
    id: UUID
    name: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition.to_dict()

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
        from ..models.session_config import SessionConfig

        d = dict(src_dict)
        definition = SessionConfig.from_dict(d.pop("definition"))

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
