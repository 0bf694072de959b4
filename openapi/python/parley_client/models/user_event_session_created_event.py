from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_session_created_event_type import (
    UserEventSessionCreatedEventType,
)

T = TypeVar("T", bound="UserEventSessionCreatedEvent")


@_attrs_define
class UserEventSessionCreatedEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        seq (int):
        session_id (UUID):
        tool_id (UUID):
        type_ (UserEventSessionCreatedEventType):  Example: session_created.
    """

    seq: int
    session_id: UUID
    tool_id: UUID
    type_: UserEventSessionCreatedEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        session_id = str(self.session_id)

        tool_id = str(self.tool_id)

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "session_id": session_id,
                "tool_id": tool_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        tool_id = UUID(d.pop("tool_id"))

        type_ = UserEventSessionCreatedEventType(d.pop("type"))

        user_event_session_created_event = cls(
            seq=seq,
            session_id=session_id,
            tool_id=tool_id,
            type_=type_,
        )

        user_event_session_created_event.additional_properties = d
        return user_event_session_created_event

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
