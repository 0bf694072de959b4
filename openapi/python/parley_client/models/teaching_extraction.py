from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="TeachingExtraction")


@_attrs_define
class TeachingExtraction:
    """Structured data a module recorded about a class's session (`pii_detected`,
    `safety_flag`, a webhook's `struggle_detected`, …), with where to read it: the
    session and, when the finding is about one, the message.

        Attributes:
            assignment_id (UUID):
            assignment_title (str):
            created_at (datetime.datetime):
            data (Any): What the module recorded (its own shape per `type`).
            id (UUID):
            module (str):
            session_id (UUID):
            student_id (UUID):
            student_name (str):
            type_ (str):
            message_id (UUID | Unset):
            session_title (str | Unset):
    """

    assignment_id: UUID
    assignment_title: str
    created_at: datetime.datetime
    data: Any
    id: UUID
    module: str
    session_id: UUID
    student_id: UUID
    student_name: str
    type_: str
    message_id: UUID | Unset = UNSET
    session_title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        assignment_id = str(self.assignment_id)

        assignment_title = self.assignment_title

        created_at = self.created_at.isoformat()

        data = self.data

        id = str(self.id)

        module = self.module

        session_id = str(self.session_id)

        student_id = str(self.student_id)

        student_name = self.student_name

        type_ = self.type_

        message_id: str | Unset = UNSET
        if not isinstance(self.message_id, Unset):
            message_id = str(self.message_id)

        session_title = self.session_title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "assignment_id": assignment_id,
                "assignment_title": assignment_title,
                "created_at": created_at,
                "data": data,
                "id": id,
                "module": module,
                "session_id": session_id,
                "student_id": student_id,
                "student_name": student_name,
                "type": type_,
            }
        )
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if session_title is not UNSET:
            field_dict["session_title"] = session_title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        assignment_id = UUID(d.pop("assignment_id"))

        assignment_title = d.pop("assignment_title")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        data = d.pop("data")

        id = UUID(d.pop("id"))

        module = d.pop("module")

        session_id = UUID(d.pop("session_id"))

        student_id = UUID(d.pop("student_id"))

        student_name = d.pop("student_name")

        type_ = d.pop("type")

        _message_id = d.pop("message_id", UNSET)
        message_id: UUID | Unset
        if isinstance(_message_id, Unset):
            message_id = UNSET
        else:
            message_id = UUID(_message_id)

        session_title = d.pop("session_title", UNSET)

        teaching_extraction = cls(
            assignment_id=assignment_id,
            assignment_title=assignment_title,
            created_at=created_at,
            data=data,
            id=id,
            module=module,
            session_id=session_id,
            student_id=student_id,
            student_name=student_name,
            type_=type_,
            message_id=message_id,
            session_title=session_title,
        )

        teaching_extraction.additional_properties = d
        return teaching_extraction

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
