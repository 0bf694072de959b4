from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.member_role import MemberRole

T = TypeVar("T", bound="PutMember")


@_attrs_define
class PutMember:
    """The role to give a member.

    Attributes:
        role (MemberRole): A member's part in a group.
    """

    role: MemberRole

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
        role = MemberRole(d.pop("role"))

        put_member = cls(
            role=role,
        )

        return put_member
