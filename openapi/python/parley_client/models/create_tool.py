from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_definition import ToolDefinition


T = TypeVar("T", bound="CreateTool")


@_attrs_define
class CreateTool:
    """A new tool.

    Attributes:
        definition (ToolDefinition): What a chat tool is: its behavior, model, constraints, modules and functions.

            Absent options are not stored, so the organisation's settings stay in force for them
            when a session's configuration is resolved (org → tool → assignment).
        group_id (UUID): The group that owns the tool; its members and those of its sub-groups may use it.
        name (str):
        type_ (None | str | Unset): The tool's kind (default `chat`). Default: 'chat'.
    """

    definition: ToolDefinition
    group_id: UUID
    name: str
    type_: None | str | Unset = "chat"

    def to_dict(self) -> dict[str, Any]:
        definition = self.definition.to_dict()

        group_id = str(self.group_id)

        name = self.name

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "definition": definition,
                "group_id": group_id,
                "name": name,
            }
        )
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_definition import ToolDefinition

        d = dict(src_dict)
        definition = ToolDefinition.from_dict(d.pop("definition"))

        group_id = UUID(d.pop("group_id"))

        name = d.pop("name")

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        create_tool = cls(
            definition=definition,
            group_id=group_id,
            name=name,
            type_=type_,
        )

        return create_tool
