from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionContext")


@_attrs_define
class SessionContext:
    """
    Attributes:
        id (UUID):
        message_count (int):
        started_at (datetime.datetime):
        state (str): `active` or `completed`.
        end_reason (str | Unset): Why the session ended (`session:end` only).
    """

    id: UUID
    message_count: int
    started_at: datetime.datetime
    state: str
    end_reason: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        message_count = self.message_count

        started_at = self.started_at.isoformat()

        state = self.state

        end_reason = self.end_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "message_count": message_count,
                "started_at": started_at,
                "state": state,
            }
        )
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        message_count = d.pop("message_count")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        state = d.pop("state")

        end_reason = d.pop("end_reason", UNSET)

        session_context = cls(
            id=id,
            message_count=message_count,
            started_at=started_at,
            state=state,
            end_reason=end_reason,
        )

        session_context.additional_properties = d
        return session_context

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
