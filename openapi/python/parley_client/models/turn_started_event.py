from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TurnStartedEvent")


@_attrs_define
class TurnStartedEvent:
    """A turn was accepted: follow it at `/v1/prompts/{prompt_id}/events`.

    Attributes:
        prompt_id (UUID):
        seq (int):
        session_id (UUID):
        user_message_id (UUID | Unset):
    """

    prompt_id: UUID
    seq: int
    session_id: UUID
    user_message_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_id = str(self.prompt_id)

        seq = self.seq

        session_id = str(self.session_id)

        user_message_id: str | Unset = UNSET
        if not isinstance(self.user_message_id, Unset):
            user_message_id = str(self.user_message_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_id": prompt_id,
                "seq": seq,
                "session_id": session_id,
            }
        )
        if user_message_id is not UNSET:
            field_dict["user_message_id"] = user_message_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        _user_message_id = d.pop("user_message_id", UNSET)
        user_message_id: UUID | Unset
        if isinstance(_user_message_id, Unset):
            user_message_id = UNSET
        else:
            user_message_id = UUID(_user_message_id)

        turn_started_event = cls(
            prompt_id=prompt_id,
            seq=seq,
            session_id=session_id,
            user_message_id=user_message_id,
        )

        turn_started_event.additional_properties = d
        return turn_started_event

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
