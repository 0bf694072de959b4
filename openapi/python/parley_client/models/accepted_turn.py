from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="AcceptedTurn")


@_attrs_define
class AcceptedTurn:
    """A turn accepted to run in the background.

    Attributes:
        events_url (str): The SSE feed of the turn.
        prompt_id (UUID):
        user_message_id (UUID | Unset): The user message the turn answers: the id a new message will have when the
            worker saves it, or the message a regenerate answers again.
    """

    events_url: str
    prompt_id: UUID
    user_message_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        events_url = self.events_url

        prompt_id = str(self.prompt_id)

        user_message_id: str | Unset = UNSET
        if not isinstance(self.user_message_id, Unset):
            user_message_id = str(self.user_message_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "events_url": events_url,
                "prompt_id": prompt_id,
            }
        )
        if user_message_id is not UNSET:
            field_dict["user_message_id"] = user_message_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        events_url = d.pop("events_url")

        prompt_id = UUID(d.pop("prompt_id"))

        _user_message_id = d.pop("user_message_id", UNSET)
        user_message_id: UUID | Unset
        if isinstance(_user_message_id, Unset):
            user_message_id = UNSET
        else:
            user_message_id = UUID(_user_message_id)

        accepted_turn = cls(
            events_url=events_url,
            prompt_id=prompt_id,
            user_message_id=user_message_id,
        )

        accepted_turn.additional_properties = d
        return accepted_turn

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
