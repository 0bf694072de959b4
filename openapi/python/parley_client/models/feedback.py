from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rating import Rating
from ..types import UNSET, Unset

T = TypeVar("T", bound="Feedback")


@_attrs_define
class Feedback:
    """The caller's feedback on an answer.

    Attributes:
        created_at (datetime.datetime): When it was first given.
        message_id (UUID): The answer (an assistant message).
        rating (Rating): What a user thought of an answer: thumbs `up` or `down`.
        tags (list[str]):
        updated_at (datetime.datetime): When it was last given (changed).
        comment (str | Unset): Absent without one.
    """

    created_at: datetime.datetime
    message_id: UUID
    rating: Rating
    tags: list[str]
    updated_at: datetime.datetime
    comment: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        message_id = str(self.message_id)

        rating = self.rating.value

        tags = self.tags

        updated_at = self.updated_at.isoformat()

        comment = self.comment

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "message_id": message_id,
                "rating": rating,
                "tags": tags,
                "updated_at": updated_at,
            }
        )
        if comment is not UNSET:
            field_dict["comment"] = comment

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        message_id = UUID(d.pop("message_id"))

        rating = Rating(d.pop("rating"))

        tags = cast(list[str], d.pop("tags"))

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        comment = d.pop("comment", UNSET)

        feedback = cls(
            created_at=created_at,
            message_id=message_id,
            rating=rating,
            tags=tags,
            updated_at=updated_at,
            comment=comment,
        )

        feedback.additional_properties = d
        return feedback

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
