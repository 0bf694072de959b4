from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_approval_resolved_event_type import (
    UserEventApprovalResolvedEventType,
)
from ..types import UNSET, Unset

T = TypeVar("T", bound="UserEventApprovalResolvedEvent")


@_attrs_define
class UserEventApprovalResolvedEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        approved (bool):
        call_id (UUID):
        prompt_id (UUID):
        seq (int):
        session_id (UUID):
        type_ (UserEventApprovalResolvedEventType):  Example: approval_resolved.
        expired (bool | Unset): Denied because no one decided before it expired (absent: false).
    """

    approved: bool
    call_id: UUID
    prompt_id: UUID
    seq: int
    session_id: UUID
    type_: UserEventApprovalResolvedEventType
    expired: bool | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        approved = self.approved

        call_id = str(self.call_id)

        prompt_id = str(self.prompt_id)

        seq = self.seq

        session_id = str(self.session_id)

        type_ = self.type_.value

        expired = self.expired

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "approved": approved,
                "call_id": call_id,
                "prompt_id": prompt_id,
                "seq": seq,
                "session_id": session_id,
                "type": type_,
            }
        )
        if expired is not UNSET:
            field_dict["expired"] = expired

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        approved = d.pop("approved")

        call_id = UUID(d.pop("call_id"))

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        type_ = UserEventApprovalResolvedEventType(d.pop("type"))

        expired = d.pop("expired", UNSET)

        user_event_approval_resolved_event = cls(
            approved=approved,
            call_id=call_id,
            prompt_id=prompt_id,
            seq=seq,
            session_id=session_id,
            type_=type_,
            expired=expired,
        )

        user_event_approval_resolved_event.additional_properties = d
        return user_event_approval_resolved_event

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
