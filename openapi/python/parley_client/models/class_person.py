from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.enrollment_role import EnrollmentRole

T = TypeVar("T", bound="ClassPerson")


@_attrs_define
class ClassPerson:
    """Someone enrolled in the class.

    Attributes:
        email (str):
        id (UUID):
        name (str):
        role (EnrollmentRole): A person's part in a class.
        sessions (int): Their sessions on the class's assignments.
    """

    email: str
    id: UUID
    name: str
    role: EnrollmentRole
    sessions: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        id = str(self.id)

        name = self.name

        role = self.role.value

        sessions = self.sessions

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "email": email,
                "id": id,
                "name": name,
                "role": role,
                "sessions": sessions,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        role = EnrollmentRole(d.pop("role"))

        sessions = d.pop("sessions")

        class_person = cls(
            email=email,
            id=id,
            name=name,
            role=role,
            sessions=sessions,
        )

        class_person.additional_properties = d
        return class_person

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
