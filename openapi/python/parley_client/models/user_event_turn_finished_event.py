from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.prompt_state import PromptState
from ..models.user_event_turn_finished_event_type import UserEventTurnFinishedEventType
from ..types import UNSET, Unset

T = TypeVar("T", bound="UserEventTurnFinishedEvent")


@_attrs_define
class UserEventTurnFinishedEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        prompt_id (UUID):
        seq (int):
        session_id (UUID):
        state (PromptState): The states of a prompt (one generation), DESIGN §4.
        type_ (UserEventTurnFinishedEventType):  Example: turn_finished.
        assistant_message_id (UUID | Unset):
    """

    prompt_id: UUID
    seq: int
    session_id: UUID
    state: PromptState
    type_: UserEventTurnFinishedEventType
    assistant_message_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_id = str(self.prompt_id)

        seq = self.seq

        session_id = str(self.session_id)

        state = self.state.value

        type_ = self.type_.value

        assistant_message_id: str | Unset = UNSET
        if not isinstance(self.assistant_message_id, Unset):
            assistant_message_id = str(self.assistant_message_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_id": prompt_id,
                "seq": seq,
                "session_id": session_id,
                "state": state,
                "type": type_,
            }
        )
        if assistant_message_id is not UNSET:
            field_dict["assistant_message_id"] = assistant_message_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        state = PromptState(d.pop("state"))

        type_ = UserEventTurnFinishedEventType(d.pop("type"))

        _assistant_message_id = d.pop("assistant_message_id", UNSET)
        assistant_message_id: UUID | Unset
        if isinstance(_assistant_message_id, Unset):
            assistant_message_id = UNSET
        else:
            assistant_message_id = UUID(_assistant_message_id)

        user_event_turn_finished_event = cls(
            prompt_id=prompt_id,
            seq=seq,
            session_id=session_id,
            state=state,
            type_=type_,
            assistant_message_id=assistant_message_id,
        )

        user_event_turn_finished_event.additional_properties = d
        return user_event_turn_finished_event

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
