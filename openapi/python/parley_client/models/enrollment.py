from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.enrollment_role import EnrollmentRole

T = TypeVar("T", bound="Enrollment")


@_attrs_define
class Enrollment:
    """A person's enrolment in a class.

    Attributes:
        class_id (UUID):
        created_at (datetime.datetime): When the user was first enrolled.
        id (UUID):
        role (EnrollmentRole): A person's part in a class.
        user_id (UUID):
    """

    class_id: UUID
    created_at: datetime.datetime
    id: UUID
    role: EnrollmentRole
    user_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_id = str(self.class_id)

        created_at = self.created_at.isoformat()

        id = str(self.id)

        role = self.role.value

        user_id = str(self.user_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "class_id": class_id,
                "created_at": created_at,
                "id": id,
                "role": role,
                "user_id": user_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        class_id = UUID(d.pop("class_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        role = EnrollmentRole(d.pop("role"))

        user_id = UUID(d.pop("user_id"))

        enrollment = cls(
            class_id=class_id,
            created_at=created_at,
            id=id,
            role=role,
            user_id=user_id,
        )

        enrollment.additional_properties = d
        return enrollment

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
