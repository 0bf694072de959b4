from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="TeachingClass")


@_attrs_define
class TeachingClass:
    """A class the caller teaches, with its size.

    Attributes:
        assignments (int):
        id (UUID):
        name (str):
        students (int): People enrolled as students.
    """

    assignments: int
    id: UUID
    name: str
    students: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignments = self.assignments

        id = str(self.id)

        name = self.name

        students = self.students

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assignments": assignments,
                "id": id,
                "name": name,
                "students": students,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        assignments = d.pop("assignments")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        students = d.pop("students")

        teaching_class = cls(
            assignments=assignments,
            id=id,
            name=name,
            students=students,
        )

        teaching_class.additional_properties = d
        return teaching_class

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
