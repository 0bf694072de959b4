from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.rating import Rating
from ..types import UNSET, Unset

T = TypeVar("T", bound="GiveFeedback")


@_attrs_define
class GiveFeedback:
    """What the caller thinks of an answer.

    Attributes:
        rating (Rating): What a user thought of an answer: thumbs `up` or `down`.
        comment (None | str | Unset): Why, in the caller's words: at most 2000 characters; blank or absent: none.
        tags (list[str] | None | Unset): Short labels (`too_long`, `wrong`, …): at most 10, each 1 to 32 characters;
            trimmed, and a blank or repeated one is left out.
    """

    rating: Rating
    comment: None | str | Unset = UNSET
    tags: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        rating = self.rating.value

        comment: None | str | Unset
        if isinstance(self.comment, Unset):
            comment = UNSET
        else:
            comment = self.comment

        tags: list[str] | None | Unset
        if isinstance(self.tags, Unset):
            tags = UNSET
        elif isinstance(self.tags, list):
            tags = self.tags

        else:
            tags = self.tags

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "rating": rating,
            }
        )
        if comment is not UNSET:
            field_dict["comment"] = comment
        if tags is not UNSET:
            field_dict["tags"] = tags

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        rating = Rating(d.pop("rating"))

        def _parse_comment(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        comment = _parse_comment(d.pop("comment", UNSET))

        def _parse_tags(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tags_type_0 = cast(list[str], data)

                return tags_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        tags = _parse_tags(d.pop("tags", UNSET))

        give_feedback = cls(
            rating=rating,
            comment=comment,
            tags=tags,
        )

        return give_feedback
