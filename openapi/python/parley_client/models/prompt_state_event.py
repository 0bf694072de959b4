from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.prompt_state import PromptState
from ..types import UNSET, Unset

T = TypeVar("T", bound="PromptStateEvent")


@_attrs_define
class PromptStateEvent:
    """Every state transition of the prompt.

    Attributes:
        attempt (int):
        prompt_id (UUID):
        seq (int):
        state (PromptState): The states of a prompt (one generation), DESIGN §4.
        parent_id (UUID | Unset): On `in_progress`, when the turn writes a new user message: the message it follows
            in the session's tree (absent: a first message, or a regenerate's user message,
            which is in place already).
        user_message_id (UUID | Unset): On `in_progress`: the user message the turn answers (saved with this id when the
            turn writes it), so a client can place the answer under it.
    """

    attempt: int
    prompt_id: UUID
    seq: int
    state: PromptState
    parent_id: UUID | Unset = UNSET
    user_message_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        prompt_id = str(self.prompt_id)

        seq = self.seq

        state = self.state.value

        parent_id: str | Unset = UNSET
        if not isinstance(self.parent_id, Unset):
            parent_id = str(self.parent_id)

        user_message_id: str | Unset = UNSET
        if not isinstance(self.user_message_id, Unset):
            user_message_id = str(self.user_message_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "prompt_id": prompt_id,
                "seq": seq,
                "state": state,
            }
        )
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id
        if user_message_id is not UNSET:
            field_dict["user_message_id"] = user_message_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        state = PromptState(d.pop("state"))

        _parent_id = d.pop("parent_id", UNSET)
        parent_id: UUID | Unset
        if isinstance(_parent_id, Unset):
            parent_id = UNSET
        else:
            parent_id = UUID(_parent_id)

        _user_message_id = d.pop("user_message_id", UNSET)
        user_message_id: UUID | Unset
        if isinstance(_user_message_id, Unset):
            user_message_id = UNSET
        else:
            user_message_id = UUID(_user_message_id)

        prompt_state_event = cls(
            attempt=attempt,
            prompt_id=prompt_id,
            seq=seq,
            state=state,
            parent_id=parent_id,
            user_message_id=user_message_id,
        )

        prompt_state_event.additional_properties = d
        return prompt_state_event

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
