from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.class_person import ClassPerson
    from ..models.teaching_assignment import TeachingAssignment


T = TypeVar("T", bound="TeachingClassDetail")


@_attrs_define
class TeachingClassDetail:
    """A class the caller teaches, with its assignments (in the order they were made) and
    its people (by name).

        Attributes:
            assignments (list[TeachingAssignment]):
            id (UUID):
            name (str):
            students (list[ClassPerson]): People enrolled as students.
            teachers (list[ClassPerson]): People enrolled as teachers (the caller among them).
    """

    assignments: list[TeachingAssignment]
    id: UUID
    name: str
    students: list[ClassPerson]
    teachers: list[ClassPerson]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignments = []
        for assignments_item_data in self.assignments:
            assignments_item = assignments_item_data.to_dict()
            assignments.append(assignments_item)

        id = str(self.id)

        name = self.name

        students = []
        for students_item_data in self.students:
            students_item = students_item_data.to_dict()
            students.append(students_item)

        teachers = []
        for teachers_item_data in self.teachers:
            teachers_item = teachers_item_data.to_dict()
            teachers.append(teachers_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assignments": assignments,
                "id": id,
                "name": name,
                "students": students,
                "teachers": teachers,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.class_person import ClassPerson
        from ..models.teaching_assignment import TeachingAssignment

        d = dict(src_dict)
        assignments = []
        _assignments = d.pop("assignments")
        for assignments_item_data in _assignments:
            assignments_item = TeachingAssignment.from_dict(assignments_item_data)

            assignments.append(assignments_item)

        id = UUID(d.pop("id"))

        name = d.pop("name")

        students = []
        _students = d.pop("students")
        for students_item_data in _students:
            students_item = ClassPerson.from_dict(students_item_data)

            students.append(students_item)

        teachers = []
        _teachers = d.pop("teachers")
        for teachers_item_data in _teachers:
            teachers_item = ClassPerson.from_dict(teachers_item_data)

            teachers.append(teachers_item)

        teaching_class_detail = cls(
            assignments=assignments,
            id=id,
            name=name,
            students=students,
            teachers=teachers,
        )

        teaching_class_detail.additional_properties = d
        return teaching_class_detail

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
