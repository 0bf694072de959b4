from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Class")


@_attrs_define
class Class:
    """A course inside a group.

    Attributes:
        created_at (datetime.datetime):
        group_id (UUID):
        id (UUID):
        name (str):
        updated_at (datetime.datetime):
        group_name (str | Unset): The group's name (absent only when it was deleted while the answer was read).
    """

    created_at: datetime.datetime
    group_id: UUID
    id: UUID
    name: str
    updated_at: datetime.datetime
    group_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        group_id = str(self.group_id)

        id = str(self.id)

        name = self.name

        updated_at = self.updated_at.isoformat()

        group_name = self.group_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "group_id": group_id,
                "id": id,
                "name": name,
                "updated_at": updated_at,
            }
        )
        if group_name is not UNSET:
            field_dict["group_name"] = group_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        group_id = UUID(d.pop("group_id"))

        id = UUID(d.pop("id"))

        name = d.pop("name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        group_name = d.pop("group_name", UNSET)

        class_ = cls(
            created_at=created_at,
            group_id=group_id,
            id=id,
            name=name,
            updated_at=updated_at,
            group_name=group_name,
        )

        class_.additional_properties = d
        return class_

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
