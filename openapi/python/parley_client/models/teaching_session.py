from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.session_state import SessionState
from ..types import UNSET, Unset

T = TypeVar("T", bound="TeachingSession")


@_attrs_define
class TeachingSession:
    """A session opened on one of the class's assignments.

    Attributes:
        assignment_id (UUID):
        assignment_title (str):
        blocks (int): Messages or answers a module blocked in it.
        extractions (int): Extractions modules recorded in it.
        id (UUID):
        last_activity_at (datetime.datetime):
        message_count (int):
        started_at (datetime.datetime):
        state (SessionState): A session is `active` until it is completed.
        student_id (UUID): Whose session it is.
        student_name (str):
        title (str | Unset): Its title, once it has one.
    """

    assignment_id: UUID
    assignment_title: str
    blocks: int
    extractions: int
    id: UUID
    last_activity_at: datetime.datetime
    message_count: int
    started_at: datetime.datetime
    state: SessionState
    student_id: UUID
    student_name: str
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignment_id = str(self.assignment_id)

        assignment_title = self.assignment_title

        blocks = self.blocks

        extractions = self.extractions

        id = str(self.id)

        last_activity_at = self.last_activity_at.isoformat()

        message_count = self.message_count

        started_at = self.started_at.isoformat()

        state = self.state.value

        student_id = str(self.student_id)

        student_name = self.student_name

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assignment_id": assignment_id,
                "assignment_title": assignment_title,
                "blocks": blocks,
                "extractions": extractions,
                "id": id,
                "last_activity_at": last_activity_at,
                "message_count": message_count,
                "started_at": started_at,
                "state": state,
                "student_id": student_id,
                "student_name": student_name,
            }
        )
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        assignment_id = UUID(d.pop("assignment_id"))

        assignment_title = d.pop("assignment_title")

        blocks = d.pop("blocks")

        extractions = d.pop("extractions")

        id = UUID(d.pop("id"))

        last_activity_at = datetime.datetime.fromisoformat(d.pop("last_activity_at"))

        message_count = d.pop("message_count")

        started_at = datetime.datetime.fromisoformat(d.pop("started_at"))

        state = SessionState(d.pop("state"))

        student_id = UUID(d.pop("student_id"))

        student_name = d.pop("student_name")

        title = d.pop("title", UNSET)

        teaching_session = cls(
            assignment_id=assignment_id,
            assignment_title=assignment_title,
            blocks=blocks,
            extractions=extractions,
            id=id,
            last_activity_at=last_activity_at,
            message_count=message_count,
            started_at=started_at,
            state=state,
            student_id=student_id,
            student_name=student_name,
            title=title,
        )

        teaching_session.additional_properties = d
        return teaching_session

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
