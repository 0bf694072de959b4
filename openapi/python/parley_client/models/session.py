from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_state import SessionState
from ..models.title_source import TitleSource
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
        archived (bool | Unset): Present (true) when the owner archived it: archived sessions leave the default list.
        archived_at (datetime.datetime | Unset): When it was archived.
        assignment_id (UUID | Unset):
        end_reason (str | Unset):
        ended_at (datetime.datetime | Unset):
        pinned (bool | Unset): Present (true) when the owner pinned it: pinned sessions list first.
        pinned_at (datetime.datetime | Unset): When it was pinned.
        submission_id (UUID | Unset):
        title (str | Unset): What the session is called: the owner's title, or one generated after its first
            exchange (the title model's, or the first words of the first message). Absent
            until then.
        title_source (TitleSource | Unset): `sessions.title_source`: who wrote a session's title. The generator only
            ever
            replaces a `words` title; the owner's (`user`) is never replaced.
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
    archived: bool | Unset = UNSET
    archived_at: datetime.datetime | Unset = UNSET
    assignment_id: UUID | Unset = UNSET
    end_reason: str | Unset = UNSET
    ended_at: datetime.datetime | Unset = UNSET
    pinned: bool | Unset = UNSET
    pinned_at: datetime.datetime | Unset = UNSET
    submission_id: UUID | Unset = UNSET
    title: str | Unset = UNSET
    title_source: TitleSource | Unset = UNSET
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

        archived = self.archived

        archived_at: str | Unset = UNSET
        if not isinstance(self.archived_at, Unset):
            archived_at = self.archived_at.isoformat()

        assignment_id: str | Unset = UNSET
        if not isinstance(self.assignment_id, Unset):
            assignment_id = str(self.assignment_id)

        end_reason = self.end_reason

        ended_at: str | Unset = UNSET
        if not isinstance(self.ended_at, Unset):
            ended_at = self.ended_at.isoformat()

        pinned = self.pinned

        pinned_at: str | Unset = UNSET
        if not isinstance(self.pinned_at, Unset):
            pinned_at = self.pinned_at.isoformat()

        submission_id: str | Unset = UNSET
        if not isinstance(self.submission_id, Unset):
            submission_id = str(self.submission_id)

        title = self.title

        title_source: str | Unset = UNSET
        if not isinstance(self.title_source, Unset):
            title_source = self.title_source.value

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
        if archived is not UNSET:
            field_dict["archived"] = archived
        if archived_at is not UNSET:
            field_dict["archived_at"] = archived_at
        if assignment_id is not UNSET:
            field_dict["assignment_id"] = assignment_id
        if end_reason is not UNSET:
            field_dict["end_reason"] = end_reason
        if ended_at is not UNSET:
            field_dict["ended_at"] = ended_at
        if pinned is not UNSET:
            field_dict["pinned"] = pinned
        if pinned_at is not UNSET:
            field_dict["pinned_at"] = pinned_at
        if submission_id is not UNSET:
            field_dict["submission_id"] = submission_id
        if title is not UNSET:
            field_dict["title"] = title
        if title_source is not UNSET:
            field_dict["title_source"] = title_source

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

        archived = d.pop("archived", UNSET)

        _archived_at = d.pop("archived_at", UNSET)
        archived_at: datetime.datetime | Unset
        if isinstance(_archived_at, Unset):
            archived_at = UNSET
        else:
            archived_at = datetime.datetime.fromisoformat(_archived_at)

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

        pinned = d.pop("pinned", UNSET)

        _pinned_at = d.pop("pinned_at", UNSET)
        pinned_at: datetime.datetime | Unset
        if isinstance(_pinned_at, Unset):
            pinned_at = UNSET
        else:
            pinned_at = datetime.datetime.fromisoformat(_pinned_at)

        _submission_id = d.pop("submission_id", UNSET)
        submission_id: UUID | Unset
        if isinstance(_submission_id, Unset):
            submission_id = UNSET
        else:
            submission_id = UUID(_submission_id)

        title = d.pop("title", UNSET)

        _title_source = d.pop("title_source", UNSET)
        title_source: TitleSource | Unset
        if isinstance(_title_source, Unset):
            title_source = UNSET
        else:
            title_source = TitleSource(_title_source)

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
            archived=archived,
            archived_at=archived_at,
            assignment_id=assignment_id,
            end_reason=end_reason,
            ended_at=ended_at,
            pinned=pinned,
            pinned_at=pinned_at,
            submission_id=submission_id,
            title=title,
            title_source=title_source,
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
