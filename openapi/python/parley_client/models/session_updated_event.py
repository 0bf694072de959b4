from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_state import SessionState
from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionUpdatedEvent")


@_attrs_define
class SessionUpdatedEvent:
    """A session changed; only the fields that changed are present (its title, a rename,
    pinned, archived, its state when it ended and why).

        Attributes:
            seq (int):
            session_id (UUID):
            archived (bool | Unset):
            end_reason (str | Unset):
            pinned (bool | Unset):
            state (SessionState | Unset): A session is `active` until it is completed.
            title (str | Unset):
    """

    seq: int
    session_id: UUID
    archived: bool | Unset = UNSET
    end_reason: str | Unset = UNSET
    pinned: bool | Unset = UNSET
    state: SessionState | Unset = UNSET
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        seq = self.seq

        session_id = str(self.session_id)

        archived = self.archived

        end_reason = self.end_reason

        pinned = self.pinned

        state: str | Unset = UNSET
        if not isinstance(self.state, Unset):
            state = self.state.value

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "seq": seq,
                "session_id": session_id,
            }
        )
        if archived is not UNSET:
            field_dict["archived"] = archived
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if pinned is not UNSET:
            field_dict["pinned"] = pinned
        if state is not UNSET:
            field_dict["state"] = state
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        seq = d.pop("seq")

        session_id = UUID(d.pop("session_id"))

        archived = d.pop("archived", UNSET)

        end_reason = d.pop("end_reason", UNSET)

        pinned = d.pop("pinned", UNSET)

        _state = d.pop("state", UNSET)
        state: SessionState | Unset
        if isinstance(_state, Unset):
            state = UNSET
        else:
            state = SessionState(_state)

        title = d.pop("title", UNSET)

        session_updated_event = cls(
            seq=seq,
            session_id=session_id,
            archived=archived,
            end_reason=end_reason,
            pinned=pinned,
            state=state,
            title=title,
        )

        session_updated_event.additional_properties = d
        return session_updated_event

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
