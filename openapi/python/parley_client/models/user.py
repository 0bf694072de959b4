from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_role import UserRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="User")


@_attrs_define
class User:
    """A person who signs in.

    Attributes:
        created_at (datetime.datetime):
        email (str):
        id (UUID):
        name (str):
        permissions (list[str]): Extra permissions on top of the role; an entry `-name` revokes `name` (e.g.
            `-todos:write:self` denies a default of the role).
        role (UserRole): What a person is across the deployment.
        updated_at (datetime.datetime):
        disabled_at (datetime.datetime | Unset): When the user was disabled (absent: enabled). A disabled user's tokens
            authenticate nobody and their open feeds close.
    """

    created_at: datetime.datetime
    email: str
    id: UUID
    name: str
    permissions: list[str]
    role: UserRole
    updated_at: datetime.datetime
    disabled_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        email = self.email

        id = str(self.id)

        name = self.name

        permissions = self.permissions

        role = self.role.value

        updated_at = self.updated_at.isoformat()

        disabled_at: str | Unset = UNSET
        if not isinstance(self.disabled_at, Unset):
            disabled_at = self.disabled_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "email": email,
                "id": id,
                "name": name,
                "permissions": permissions,
                "role": role,
                "updated_at": updated_at,
            }
        )
        if disabled_at is not UNSET:
            field_dict["disabled_at"] = disabled_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        email = d.pop("email")

        id = UUID(d.pop("id"))

        name = d.pop("name")

        permissions = cast(list[str], d.pop("permissions"))

        role = UserRole(d.pop("role"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        _disabled_at = d.pop("disabled_at", UNSET)
        disabled_at: datetime.datetime | Unset
        if isinstance(_disabled_at, Unset):
            disabled_at = UNSET
        else:
            disabled_at = datetime.datetime.fromisoformat(_disabled_at)

        user = cls(
            created_at=created_at,
            email=email,
            id=id,
            name=name,
            permissions=permissions,
            role=role,
            updated_at=updated_at,
            disabled_at=disabled_at,
        )

        user.additional_properties = d
        return user

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
