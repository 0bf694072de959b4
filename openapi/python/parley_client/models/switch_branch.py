from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

T = TypeVar("T", bound="SwitchBranch")


@_attrs_define
class SwitchBranch:
    """The branch to show and continue.

    Attributes:
        message_id (UUID): A message of the session: the branch through it (down to its newest leaf)
            becomes the active one.
    """

    message_id: UUID

    def to_dict(self) -> dict[str, Any]:
        message_id = str(self.message_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message_id": message_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_id = UUID(d.pop("message_id"))

        switch_branch = cls(
            message_id=message_id,
        )

        return switch_branch
