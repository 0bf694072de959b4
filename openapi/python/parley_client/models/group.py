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


T = TypeVar("T", bound="Group")


@_attrs_define
class Group:
    """A group of the organisation tree (a school, a department, …).

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        name (str):
        path (str): The ids from the root down to this group: `/<root>/…/<id>/`.
        settings (ConfigOverrides): Options over the tool's definition: a group's `settings` (for the tools of the group
            and its sub-groups) or an assignment's `config` (for its sessions). Every option is
            optional — an absent one leaves what the layer below says in force — and means what
            it means in a tool definition; `guidance` is set here only.
        updated_at (datetime.datetime):
        parent_id (UUID | Unset): Absent for a root group.
        parent_name (str | Unset): The parent's name (absent for a root group; otherwise absent only when it was deleted
            while the answer was read).
    """

    created_at: datetime.datetime
    id: UUID
    name: str
    path: str
    settings: ConfigOverrides
    updated_at: datetime.datetime
    parent_id: UUID | Unset = UNSET
    parent_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        name = self.name

        path = self.path

        settings = self.settings.to_dict()

        updated_at = self.updated_at.isoformat()

        parent_id: str | Unset = UNSET
        if not isinstance(self.parent_id, Unset):
            parent_id = str(self.parent_id)

        parent_name = self.parent_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "name": name,
                "path": path,
                "settings": settings,
                "updated_at": updated_at,
            }
        )
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id
        if parent_name is not UNSET:
            field_dict["parent_name"] = parent_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        name = d.pop("name")

        path = d.pop("path")

        settings = ConfigOverrides.from_dict(d.pop("settings"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        _parent_id = d.pop("parent_id", UNSET)
        parent_id: UUID | Unset
        if isinstance(_parent_id, Unset):
            parent_id = UNSET
        else:
            parent_id = UUID(_parent_id)

        parent_name = d.pop("parent_name", UNSET)

        group = cls(
            created_at=created_at,
            id=id,
            name=name,
            path=path,
            settings=settings,
            updated_at=updated_at,
            parent_id=parent_id,
            parent_name=parent_name,
        )

        group.additional_properties = d
        return group

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
