from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.enrollment_role import EnrollmentRole
from ..types import UNSET, Unset

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
        user_email (str | Unset): The user's email (absent with `user_name`).
        user_name (str | Unset): The user's name (absent only when it was deleted while the answer was read).
    """

    class_id: UUID
    created_at: datetime.datetime
    id: UUID
    role: EnrollmentRole
    user_id: UUID
    user_email: str | Unset = UNSET
    user_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        class_id = str(self.class_id)

        created_at = self.created_at.isoformat()

        id = str(self.id)

        role = self.role.value

        user_id = str(self.user_id)

        user_email = self.user_email

        user_name = self.user_name

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
        if user_email is not UNSET:
            field_dict["user_email"] = user_email
        if user_name is not UNSET:
            field_dict["user_name"] = user_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        class_id = UUID(d.pop("class_id"))

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        role = EnrollmentRole(d.pop("role"))

        user_id = UUID(d.pop("user_id"))

        user_email = d.pop("user_email", UNSET)

        user_name = d.pop("user_name", UNSET)

        enrollment = cls(
            class_id=class_id,
            created_at=created_at,
            id=id,
            role=role,
            user_id=user_id,
            user_email=user_email,
            user_name=user_name,
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
