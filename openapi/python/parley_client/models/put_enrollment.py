from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.enrollment_role import EnrollmentRole

T = TypeVar("T", bound="PutEnrollment")


@_attrs_define
class PutEnrollment:
    """The role to give an enrolled person.

    Attributes:
        role (EnrollmentRole): A person's part in a class.
    """

    role: EnrollmentRole

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "role": role,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        role = EnrollmentRole(d.pop("role"))

        put_enrollment = cls(
            role=role,
        )

        return put_enrollment
