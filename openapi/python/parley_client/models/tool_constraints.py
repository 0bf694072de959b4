from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolConstraints")


@_attrs_define
class ToolConstraints:
    """Limits on what a tool talks about and how it answers.

    Attributes:
        no_direct_answers (bool | None | Unset): Guide the learner instead of giving the answer away.
        topics (list[str] | None | Unset): Topics the tool sticks to (empty: any).
    """

    no_direct_answers: bool | None | Unset = UNSET
    topics: list[str] | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        no_direct_answers: bool | None | Unset
        if isinstance(self.no_direct_answers, Unset):
            no_direct_answers = UNSET
        else:
            no_direct_answers = self.no_direct_answers

        topics: list[str] | None | Unset
        if isinstance(self.topics, Unset):
            topics = UNSET
        elif isinstance(self.topics, list):
            topics = self.topics

        else:
            topics = self.topics

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if no_direct_answers is not UNSET:
            field_dict["no_direct_answers"] = no_direct_answers
        if topics is not UNSET:
            field_dict["topics"] = topics

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_no_direct_answers(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        no_direct_answers = _parse_no_direct_answers(d.pop("no_direct_answers", UNSET))

        def _parse_topics(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                topics_type_0 = cast(list[str], data)

                return topics_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        topics = _parse_topics(d.pop("topics", UNSET))

        tool_constraints = cls(
            no_direct_answers=no_direct_answers,
            topics=topics,
        )

        return tool_constraints
