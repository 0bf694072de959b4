from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TeachingBlock")


@_attrs_define
class TeachingBlock:
    """A module's block in a class's session: which module, of what (`chat:before_ai`: the
    student's message, stored as `[blocked]`; `chat:after_ai`: the answer, replaced by
    the module's response), why — never the blocked text.

        Attributes:
            assignment_id (UUID):
            assignment_title (str):
            created_at (datetime.datetime):
            hook (str):
            id (UUID):
            module (str):
            session_id (UUID):
            student_id (UUID):
            student_name (str):
            category (str | Unset): The category the module gave (`self_harm`, `policy`, …).
            message_id (UUID | Unset): The blocked message (or the answer that replaced a blocked answer).
            reason (str | Unset): The module's reason, recorded for a blocked message (not for an answer).
            session_title (str | Unset):
    """

    assignment_id: UUID
    assignment_title: str
    created_at: datetime.datetime
    hook: str
    id: UUID
    module: str
    session_id: UUID
    student_id: UUID
    student_name: str
    category: str | Unset = UNSET
    message_id: UUID | Unset = UNSET
    reason: str | Unset = UNSET
    session_title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignment_id = str(self.assignment_id)

        assignment_title = self.assignment_title

        created_at = self.created_at.isoformat()

        hook = self.hook

        id = str(self.id)

        module = self.module

        session_id = str(self.session_id)

        student_id = str(self.student_id)

        student_name = self.student_name

        category = self.category

        message_id: str | Unset = UNSET
        if not isinstance(self.message_id, Unset):
            message_id = str(self.message_id)

        reason = self.reason

        session_title = self.session_title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assignment_id": assignment_id,
                "assignment_title": assignment_title,
                "created_at": created_at,
                "hook": hook,
                "id": id,
                "module": module,
                "session_id": session_id,
                "student_id": student_id,
                "student_name": student_name,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if reason is not UNSET:
            field_dict["reason"] = reason
        if session_title is not UNSET:
            field_dict["session_title"] = session_title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        assignment_id = UUID(d.pop("assignment_id"))

        assignment_title = d.pop("assignment_title")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        hook = d.pop("hook")

        id = UUID(d.pop("id"))

        module = d.pop("module")

        session_id = UUID(d.pop("session_id"))

        student_id = UUID(d.pop("student_id"))

        student_name = d.pop("student_name")

        category = d.pop("category", UNSET)

        _message_id = d.pop("message_id", UNSET)
        message_id: UUID | Unset
        if isinstance(_message_id, Unset):
            message_id = UNSET
        else:
            message_id = UUID(_message_id)

        reason = d.pop("reason", UNSET)

        session_title = d.pop("session_title", UNSET)

        teaching_block = cls(
            assignment_id=assignment_id,
            assignment_title=assignment_title,
            created_at=created_at,
            hook=hook,
            id=id,
            module=module,
            session_id=session_id,
            student_id=student_id,
            student_name=student_name,
            category=category,
            message_id=message_id,
            reason=reason,
            session_title=session_title,
        )

        teaching_block.additional_properties = d
        return teaching_block

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
