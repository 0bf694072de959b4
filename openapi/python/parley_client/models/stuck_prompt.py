from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.prompt_state import PromptState
from ..types import UNSET, Unset

T = TypeVar("T", bound="StuckPrompt")


@_attrs_define
class StuckPrompt:
    """A prompt unfinished long after it was created.

    Attributes:
        age_s (int): Seconds since it was created.
        created_at (datetime.datetime):
        id (UUID):
        session_id (UUID):
        state (PromptState): The states of a prompt (one generation), DESIGN §4.
        tool_id (UUID | Unset):
        tool_name (str | Unset):
        user_id (UUID | Unset): The session's user and tool, with their names (absent when deleted).
        user_name (str | Unset):
    """

    age_s: int
    created_at: datetime.datetime
    id: UUID
    session_id: UUID
    state: PromptState
    tool_id: UUID | Unset = UNSET
    tool_name: str | Unset = UNSET
    user_id: UUID | Unset = UNSET
    user_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        age_s = self.age_s

        created_at = self.created_at.isoformat()

        id = str(self.id)

        session_id = str(self.session_id)

        state = self.state.value

        tool_id: str | Unset = UNSET
        if not isinstance(self.tool_id, Unset):
            tool_id = str(self.tool_id)

        tool_name = self.tool_name

        user_id: str | Unset = UNSET
        if not isinstance(self.user_id, Unset):
            user_id = str(self.user_id)

        user_name = self.user_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "age_s": age_s,
                "created_at": created_at,
                "id": id,
                "session_id": session_id,
                "state": state,
            }
        )
        if tool_id is not UNSET:
            field_dict["tool_id"] = tool_id
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if user_id is not UNSET:
            field_dict["user_id"] = user_id
        if user_name is not UNSET:
            field_dict["user_name"] = user_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        age_s = d.pop("age_s")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        session_id = UUID(d.pop("session_id"))

        state = PromptState(d.pop("state"))

        _tool_id = d.pop("tool_id", UNSET)
        tool_id: UUID | Unset
        if isinstance(_tool_id, Unset):
            tool_id = UNSET
        else:
            tool_id = UUID(_tool_id)

        tool_name = d.pop("tool_name", UNSET)

        _user_id = d.pop("user_id", UNSET)
        user_id: UUID | Unset
        if isinstance(_user_id, Unset):
            user_id = UNSET
        else:
            user_id = UUID(_user_id)

        user_name = d.pop("user_name", UNSET)

        stuck_prompt = cls(
            age_s=age_s,
            created_at=created_at,
            id=id,
            session_id=session_id,
            state=state,
            tool_id=tool_id,
            tool_name=tool_name,
            user_id=user_id,
            user_name=user_name,
        )

        stuck_prompt.additional_properties = d
        return stuck_prompt

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
