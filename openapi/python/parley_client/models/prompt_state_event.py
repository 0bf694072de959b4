from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.prompt_state import PromptState

T = TypeVar("T", bound="PromptStateEvent")


@_attrs_define
class PromptStateEvent:
    """Every state transition of the prompt.

    Attributes:
        attempt (int):
        prompt_id (UUID):
        seq (int):
        state (PromptState): The states of a prompt (one generation), DESIGN §4.
    """

    attempt: int
    prompt_id: UUID
    seq: int
    state: PromptState
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        prompt_id = str(self.prompt_id)

        seq = self.seq

        state = self.state.value

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

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        state = PromptState(d.pop("state"))

        prompt_state_event = cls(
            attempt=attempt,
            prompt_id=prompt_id,
            seq=seq,
            state=state,
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
