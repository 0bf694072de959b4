from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TeachingAssignment")


@_attrs_define
class TeachingAssignment:
    """An assignment of the class.

    Attributes:
        id (UUID):
        sessions (int): Sessions opened on it.
        title (str):
        tool_id (UUID): The chat tool its sessions use.
        tool_name (str):
        available_at (datetime.datetime | Unset):
        closes_at (datetime.datetime | Unset):
    """

    id: UUID
    sessions: int
    title: str
    tool_id: UUID
    tool_name: str
    available_at: datetime.datetime | Unset = UNSET
    closes_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        sessions = self.sessions

        title = self.title

        tool_id = str(self.tool_id)

        tool_name = self.tool_name

        available_at: str | Unset = UNSET
        if not isinstance(self.available_at, Unset):
            available_at = self.available_at.isoformat()

        closes_at: str | Unset = UNSET
        if not isinstance(self.closes_at, Unset):
            closes_at = self.closes_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "sessions": sessions,
                "title": title,
                "tool_id": tool_id,
                "tool_name": tool_name,
            }
        )
        if available_at is not UNSET:
            field_dict["available_at"] = available_at
        if closes_at is not UNSET:
            field_dict["closes_at"] = closes_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        sessions = d.pop("sessions")

        title = d.pop("title")

        tool_id = UUID(d.pop("tool_id"))

        tool_name = d.pop("tool_name")

        _available_at = d.pop("available_at", UNSET)
        available_at: datetime.datetime | Unset
        if isinstance(_available_at, Unset):
            available_at = UNSET
        else:
            available_at = datetime.datetime.fromisoformat(_available_at)

        _closes_at = d.pop("closes_at", UNSET)
        closes_at: datetime.datetime | Unset
        if isinstance(_closes_at, Unset):
            closes_at = UNSET
        else:
            closes_at = datetime.datetime.fromisoformat(_closes_at)

        teaching_assignment = cls(
            id=id,
            sessions=sessions,
            title=title,
            tool_id=tool_id,
            tool_name=tool_name,
            available_at=available_at,
            closes_at=closes_at,
        )

        teaching_assignment.additional_properties = d
        return teaching_assignment

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
