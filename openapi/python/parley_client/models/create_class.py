from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="CreateClass")


@_attrs_define
class CreateClass:
    """A new class.

    Attributes:
        group_id (UUID):
        name (str):
    """

    group_id: UUID
    name: str

    def to_dict(self) -> dict[str, Any]:
        group_id = str(self.group_id)

        name = self.name

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "group_id": group_id,
                "name": name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        group_id = UUID(d.pop("group_id"))

        name = d.pop("name")

        create_class = cls(
            group_id=group_id,
            name=name,
        )

        return create_class
