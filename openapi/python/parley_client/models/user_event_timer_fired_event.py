from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_timer_fired_event_type import UserEventTimerFiredEventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="UserEventTimerFiredEvent")


@_attrs_define
class UserEventTimerFiredEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        label (str):
        seq (int):
        timer_id (UUID):
        type_ (UserEventTimerFiredEventType):  Example: timer_fired.
        message_id (UUID | Unset):
        session_id (UUID | Unset):
    """

    label: str
    seq: int
    timer_id: UUID
    type_: UserEventTimerFiredEventType
    message_id: UUID | Unset = UNSET
    session_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        label = self.label

        seq = self.seq

        timer_id = str(self.timer_id)

        type_ = self.type_.value

        message_id: str | Unset = UNSET
        if not isinstance(self.message_id, Unset):
            message_id = str(self.message_id)

        session_id: str | Unset = UNSET
        if not isinstance(self.session_id, Unset):
            session_id = str(self.session_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "label": label,
                "seq": seq,
                "timer_id": timer_id,
                "type": type_,
            }
        )
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        label = d.pop("label")

        seq = d.pop("seq")

        timer_id = UUID(d.pop("timer_id"))

        type_ = UserEventTimerFiredEventType(d.pop("type"))

        _message_id = d.pop("message_id", UNSET)
        message_id: UUID | Unset
        if isinstance(_message_id, Unset):
            message_id = UNSET
        else:
            message_id = UUID(_message_id)

        _session_id = d.pop("session_id", UNSET)
        session_id: UUID | Unset
        if isinstance(_session_id, Unset):
            session_id = UNSET
        else:
            session_id = UUID(_session_id)

        user_event_timer_fired_event = cls(
            label=label,
            seq=seq,
            timer_id=timer_id,
            type_=type_,
            message_id=message_id,
            session_id=session_id,
        )

        user_event_timer_fired_event.additional_properties = d
        return user_event_timer_fired_event

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
