from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_approval_requested_event_type import (
    UserEventApprovalRequestedEventType,
)

T = TypeVar("T", bound="UserEventApprovalRequestedEvent")


@_attrs_define
class UserEventApprovalRequestedEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        call_id (UUID):
        expires_at (datetime.datetime):
        function (str):
        input_ (Any): The call's arguments.
        prompt_id (UUID):
        seq (int):
        session_id (UUID):
        type_ (UserEventApprovalRequestedEventType):  Example: approval_requested.
    """

    call_id: UUID
    expires_at: datetime.datetime
    function: str
    input_: Any
    prompt_id: UUID
    seq: int
    session_id: UUID
    type_: UserEventApprovalRequestedEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = str(self.call_id)

        expires_at = self.expires_at.isoformat()

        function = self.function

        input_ = self.input_

        prompt_id = str(self.prompt_id)

        seq = self.seq

        session_id = str(self.session_id)

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "expires_at": expires_at,
                "function": function,
                "input": input_,
                "prompt_id": prompt_id,
                "seq": seq,
                "session_id": session_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        call_id = UUID(d.pop("call_id"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        function = d.pop("function")

        input_ = d.pop("input")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        type_ = UserEventApprovalRequestedEventType(d.pop("type"))

        user_event_approval_requested_event = cls(
            call_id=call_id,
            expires_at=expires_at,
            function=function,
            input_=input_,
            prompt_id=prompt_id,
            seq=seq,
            session_id=session_id,
            type_=type_,
        )

        user_event_approval_requested_event.additional_properties = d
        return user_event_approval_requested_event

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
