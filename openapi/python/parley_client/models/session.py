from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_state import SessionState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.session_config import SessionConfig


T = TypeVar("T", bound="Session")


@_attrs_define
class Session:
    """A conversation between the caller and a chat tool.

    Attributes:
        config (SessionConfig): A session's configuration: group settings (root first) → the tool's definition → the
            assignment's config, merged field by field when the session opened and frozen on it
            (a tool changed later does not change open sessions). Absent options take the
            deployment's defaults.
        id (UUID):
        last_activity_at (datetime.datetime):
        message_count (int):
        started_at (datetime.datetime):
        state (SessionState): A session is `active` until it is completed.
        tool_id (UUID):
        active_leaf_id (UUID | Unset): The last message of the branch the session shows and continues (absent before
            the first message).
        active_prompt_id (UUID | Unset): The generation in flight, if any.
        assignment_id (UUID | Unset):
        end_reason (str | Unset):
        ended_at (datetime.datetime | Unset):
        submission_id (UUID | Unset):
    """

    config: SessionConfig
    id: UUID
    last_activity_at: datetime.datetime
    message_count: int
    started_at: datetime.datetime
    state: SessionState
    tool_id: UUID
    active_leaf_id: UUID | Unset = UNSET
    active_prompt_id: UUID | Unset = UNSET
    assignment_id: UUID | Unset = UNSET
    end_reason: str | Unset = UNSET
    ended_at: datetime.datetime | Unset = UNSET
    submission_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        id = str(self.id)

        last_activity_at = self.last_activity_at.isoformat()

        message_count = self.message_count

        started_at = self.started_at.isoformat()

        state = self.state.value

        tool_id = str(self.tool_id)

        active_leaf_id: str | Unset = UNSET
        if not isinstance(self.active_leaf_id, Unset):
            active_leaf_id = str(self.active_leaf_id)

        active_prompt_id: str | Unset = UNSET
        if not isinstance(self.active_prompt_id, Unset):
            active_prompt_id = str(self.active_prompt_id)

        assignment_id: str | Unset = UNSET
        if not isinstance(self.assignment_id, Unset):
            assignment_id = str(self.assignment_id)

        end_reason = self.end_reason

        ended_at: str | Unset = UNSET
        if not isinstance(self.ended_at, Unset):
            ended_at = self.ended_at.isoformat()

        submission_id: str | Unset = UNSET
        if not isinstance(self.submission_id, Unset):
            submission_id = str(self.submission_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "id": id,
                "last_activity_at": last_activity_at,
                "message_count": message_count,
                "started_at": started_at,
                "state": state,
                "tool_id": tool_id,
            }
        )
        if active_leaf_id is not UNSET:
            field_dict["active_leaf_id"] = active_leaf_id
        if active_prompt_id is not UNSET:
            field_dict["active_prompt_id"] = active_prompt_id
        if assignment_id is not UNSET:
            field_dict["assignment_id"] = assignment_id
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if submission_id is not UNSET:
            field_dict["submission_id"] = submission_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.session_config import SessionConfig

        d = dict(src_dict)
        config = SessionConfig.from_dict(d.pop("config"))

        id = UUID(d.pop("id"))

        last_activity_at = datetime.datetime.fromisoformat(d.pop("last_activity_at"))

        message_count = d.pop("message_count")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        state = SessionState(d.pop("state"))

        tool_id = UUID(d.pop("tool_id"))

        _active_leaf_id = d.pop("active_leaf_id", UNSET)
        active_leaf_id: UUID | Unset
        if isinstance(_active_leaf_id, Unset):
            active_leaf_id = UNSET
        else:
            active_leaf_id = UUID(_active_leaf_id)

        _active_prompt_id = d.pop("active_prompt_id", UNSET)
        active_prompt_id: UUID | Unset
        if isinstance(_active_prompt_id, Unset):
            active_prompt_id = UNSET
        else:
            active_prompt_id = UUID(_active_prompt_id)

        _assignment_id = d.pop("assignment_id", UNSET)
        assignment_id: UUID | Unset
        if isinstance(_assignment_id, Unset):
            assignment_id = UNSET
        else:
            assignment_id = UUID(_assignment_id)

        end_reason = d.pop("end_reason", UNSET)

        _ended_at = d.pop("ended_at", UNSET)
        ended_at: datetime.datetime | Unset
        if isinstance(_ended_at, Unset):
            ended_at = UNSET
        else:
            ended_at = datetime.datetime.fromisoformat(_ended_at)

        _submission_id = d.pop("submission_id", UNSET)
        submission_id: UUID | Unset
        if isinstance(_submission_id, Unset):
            submission_id = UNSET
        else:
            submission_id = UUID(_submission_id)

        session = cls(
            config=config,
            id=id,
            last_activity_at=last_activity_at,
            message_count=message_count,
            started_at=started_at,
            state=state,
            tool_id=tool_id,
            active_leaf_id=active_leaf_id,
            active_prompt_id=active_prompt_id,
            assignment_id=assignment_id,
            end_reason=end_reason,
            ended_at=ended_at,
            submission_id=submission_id,
        )

        session.additional_properties = d
        return session

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
