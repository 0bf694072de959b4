from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.user_role import UserRole
from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateUser")


@_attrs_define
class CreateUser:
    """A new user.

    Attributes:
        email (str): Unique, case-insensitive.
        name (str):
        role (UserRole): What a person is across the deployment.
        permissions (list[str] | None | Unset): Extra permissions on top of the role; an entry `-name` revokes `name`.
    """

    email: str
    name: str
    role: UserRole
    permissions: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        email = self.email

        name = self.name

        role = self.role.value

        permissions: list[str] | None | Unset
        if isinstance(self.permissions, Unset):
            permissions = UNSET
        elif isinstance(self.permissions, list):
            permissions = self.permissions

        else:
            permissions = self.permissions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "email": email,
                "name": name,
                "role": role,
            }
        )
        if permissions is not UNSET:
            field_dict["permissions"] = permissions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        email = d.pop("email")

        name = d.pop("name")

        role = UserRole(d.pop("role"))

        def _parse_permissions(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                permissions_type_0 = cast(list[str], data)

                return permissions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        permissions = _parse_permissions(d.pop("permissions", UNSET))

        create_user = cls(
            email=email,
            name=name,
            role=role,
            permissions=permissions,
        )

        return create_user
