from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_state import SessionState
from ..types import UNSET, Unset

T = TypeVar("T", bound="ActionResult")


@_attrs_define
class ActionResult:
    """What running an action did.

    Attributes:
        action (str):
        session_state (SessionState): A session is `active` until it is completed.
        events_url (str | Unset): `send_message`: the SSE feed of that turn.
        prompt_id (UUID | Unset): `send_message`: the turn it started (running it again returns the same turn).
    """

    action: str
    session_state: SessionState
    events_url: str | Unset = UNSET
    prompt_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        session_state = self.session_state.value

        events_url = self.events_url

        prompt_id: str | Unset = UNSET
        if not isinstance(self.prompt_id, Unset):
            prompt_id = str(self.prompt_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "session_state": session_state,
            }
        )
        if events_url is not UNSET:
            field_dict["events_url"] = events_url
        if prompt_id is not UNSET:
            field_dict["prompt_id"] = prompt_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        session_state = SessionState(d.pop("session_state"))

        events_url = d.pop("events_url", UNSET)

        _prompt_id = d.pop("prompt_id", UNSET)
        prompt_id: UUID | Unset
        if isinstance(_prompt_id, Unset):
            prompt_id = UNSET
        else:
            prompt_id = UUID(_prompt_id)

        action_result = cls(
            action=action,
            session_state=session_state,
            events_url=events_url,
            prompt_id=prompt_id,
        )

        action_result.additional_properties = d
        return action_result

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
