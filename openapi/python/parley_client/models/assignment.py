from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.config_overrides import ConfigOverrides


T = TypeVar("T", bound="Assignment")


@_attrs_define
class Assignment:
    """A task in a class, done in sessions with one tool.

    Attributes:
        class_id (UUID):
        config (ConfigOverrides): Options over the tool's definition: a group's `settings` (for the tools of the group
            and its sub-groups) or an assignment's `config` (for its sessions). Every option is
            optional — an absent one leaves what the layer below says in force — and means what
            it means in a tool definition; `guidance` is set here only.
        created_at (datetime.datetime):
        id (UUID):
        instructions (str):
        title (str):
        tool_id (UUID):
        updated_at (datetime.datetime):
        available_at (datetime.datetime | Unset): Sessions may be opened from then on; absent: at once.
        class_name (str | Unset): The class's name (absent only when it was deleted while the answer was read).
        closes_at (datetime.datetime | Unset): Sessions may be opened until then; absent: forever.
        tool_name (str | Unset): The tool's name (absent only when it was deleted while the answer was read).
    """

    class_id: UUID
    config: ConfigOverrides
    created_at: datetime.datetime
    id: UUID
    instructions: str
    title: str
    tool_id: UUID
    updated_at: datetime.datetime
    available_at: datetime.datetime | Unset = UNSET
    class_name: str | Unset = UNSET
    closes_at: datetime.datetime | Unset = UNSET
    tool_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_id = str(self.class_id)

        config = self.config.to_dict()

        created_at = self.created_at.isoformat()

        id = str(self.id)

        instructions = self.instructions

        title = self.title

        tool_id = str(self.tool_id)

        updated_at = self.updated_at.isoformat()

        available_at: str | Unset = UNSET
        if not isinstance(self.available_at, Unset):
            available_at = self.available_at.isoformat()

        class_name = self.class_name

        closes_at: str | Unset = UNSET
        if not isinstance(self.closes_at, Unset):
            closes_at = self.closes_at.isoformat()

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "class_id": class_id,
                "config": config,
                "created_at": created_at,
                "id": id,
                "instructions": instructions,
                "title": title,
                "tool_id": tool_id,
                "updated_at": updated_at,
            }
        )
        if available_at is not UNSET:
            field_dict["available_at"] = available_at
        if class_name is not UNSET:
            field_dict["class_name"] = class_name
        if closes_at is not UNSET:
            field_dict["closes_at"] = closes_at
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)
        class_id = UUID(d.pop("class_id"))

        config = ConfigOverrides.from_dict(d.pop("config"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        instructions = d.pop("instructions")

        title = d.pop("title")

        tool_id = UUID(d.pop("tool_id"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        _available_at = d.pop("available_at", UNSET)
        available_at: datetime.datetime | Unset
        if isinstance(_available_at, Unset):
            available_at = UNSET
        else:
            available_at = datetime.datetime.fromisoformat(_available_at)

        class_name = d.pop("class_name", UNSET)

        _closes_at = d.pop("closes_at", UNSET)
        closes_at: datetime.datetime | Unset
        if isinstance(_closes_at, Unset):
            closes_at = UNSET
        else:
            closes_at = datetime.datetime.fromisoformat(_closes_at)

        tool_name = d.pop("tool_name", UNSET)

        assignment = cls(
            class_id=class_id,
            config=config,
            created_at=created_at,
            id=id,
            instructions=instructions,
            title=title,
            tool_id=tool_id,
            updated_at=updated_at,
            available_at=available_at,
            class_name=class_name,
            closes_at=closes_at,
            tool_name=tool_name,
        )

        assignment.additional_properties = d
        return assignment

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
