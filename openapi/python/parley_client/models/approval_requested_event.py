from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ApprovalRequestedEvent")


@_attrs_define
class ApprovalRequestedEvent:
    """A function call waits for the user's approval: approve it (`POST
    /v1/prompts/{prompt_id}/calls/{call_id}/approve`, optionally with edited input) or
    deny it (`…/deny`) before `expires_at`, after which it is denied.

        Attributes:
            call_id (UUID):
            expires_at (datetime.datetime):
            function (str):
            input_ (Any): The call's arguments.
            prompt_id (UUID):
            seq (int):
            session_id (UUID):
    """

    call_id: UUID
    expires_at: datetime.datetime
    function: str
    input_: Any
    prompt_id: UUID
    seq: int
    session_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = str(self.call_id)

        expires_at = self.expires_at.isoformat()

        function = self.function

        input_ = self.input_

        prompt_id = str(self.prompt_id)

        seq = self.seq

        session_id = str(self.session_id)

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

        approval_requested_event = cls(
            call_id=call_id,
            expires_at=expires_at,
            function=function,
            input_=input_,
            prompt_id=prompt_id,
            seq=seq,
            session_id=session_id,
        )

        approval_requested_event.additional_properties = d
        return approval_requested_event

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
