from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rating import Rating
from ..types import UNSET, Unset

T = TypeVar("T", bound="AdminFeedback")


@_attrs_define
class AdminFeedback:
    """A user's feedback on an answer, with what it is about.

    Attributes:
        created_at (datetime.datetime): When it was first given.
        id (UUID):
        message (str): The answer's text as stored (after the modules: redacted where a redactor
            rewrote it).
        message_id (UUID): The answer (an assistant message).
        rating (Rating): What a user thought of an answer: thumbs `up` or `down`.
        session_id (UUID):
        tags (list[str]):
        tool_id (UUID): The session's chat tool.
        tool_name (str):
        updated_at (datetime.datetime): When it was last changed.
        user_email (str):
        user_id (UUID):
        user_name (str):
        comment (str | Unset):
        model (str | Unset): The model that wrote the answer, when one did.
    """

    created_at: datetime.datetime
    id: UUID
    message: str
    message_id: UUID
    rating: Rating
    session_id: UUID
    tags: list[str]
    tool_id: UUID
    tool_name: str
    updated_at: datetime.datetime
    user_email: str
    user_id: UUID
    user_name: str
    comment: str | Unset = UNSET
    model: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        message = self.message

        message_id = str(self.message_id)

        rating = self.rating.value

        session_id = str(self.session_id)

        tags = self.tags

        tool_id = str(self.tool_id)

        tool_name = self.tool_name

        updated_at = self.updated_at.isoformat()

        user_email = self.user_email

        user_id = str(self.user_id)

        user_name = self.user_name

        comment = self.comment

        model = self.model

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "message": message,
                "message_id": message_id,
                "rating": rating,
                "session_id": session_id,
                "tags": tags,
                "tool_id": tool_id,
                "tool_name": tool_name,
                "updated_at": updated_at,
                "user_email": user_email,
                "user_id": user_id,
                "user_name": user_name,
            }
        )
        if comment is not UNSET:
            field_dict["comment"] = comment
        if model is not UNSET:
            field_dict["model"] = model

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        message = d.pop("message")

        message_id = UUID(d.pop("message_id"))

        rating = Rating(d.pop("rating"))

        session_id = UUID(d.pop("session_id"))

        tags = cast(list[str], d.pop("tags"))

        tool_id = UUID(d.pop("tool_id"))

        tool_name = d.pop("tool_name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        user_email = d.pop("user_email")

        user_id = UUID(d.pop("user_id"))

        user_name = d.pop("user_name")

        comment = d.pop("comment", UNSET)

        model = d.pop("model", UNSET)

        admin_feedback = cls(
            created_at=created_at,
            id=id,
            message=message,
            message_id=message_id,
            rating=rating,
            session_id=session_id,
            tags=tags,
            tool_id=tool_id,
            tool_name=tool_name,
            updated_at=updated_at,
            user_email=user_email,
            user_id=user_id,
            user_name=user_name,
            comment=comment,
            model=model,
        )

        admin_feedback.additional_properties = d
        return admin_feedback

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
