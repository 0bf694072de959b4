from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.rating import Rating

T = TypeVar("T", bound="FeedbackByRating")


@_attrs_define
class FeedbackByRating:
    """How many ratings of one kind.

    Attributes:
        count (int):
        rating (Rating): What a user thought of an answer: thumbs `up` or `down`.
    """

    count: int
    rating: Rating
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        count = self.count

        rating = self.rating.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "count": count,
                "rating": rating,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        count = d.pop("count")

        rating = Rating(d.pop("rating"))

        feedback_by_rating = cls(
            count=count,
            rating=rating,
        )

        feedback_by_rating.additional_properties = d
        return feedback_by_rating

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
