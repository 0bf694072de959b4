from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="CreateSession")


@_attrs_define
class CreateSession:
    """Open a session with a chat tool, optionally for an assignment.

    Attributes:
        tool_id (UUID): The chat tool to talk to; the caller must reach it through their groups.
        assignment_id (None | Unset | UUID): The assignment this session works on; the caller must be enrolled in its
            class
            and the assignment must be open.
        submission_id (None | Unset | UUID): The caller's submission for that assignment.
    """

    tool_id: UUID
    assignment_id: None | Unset | UUID = UNSET
    submission_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        tool_id = str(self.tool_id)

        assignment_id: None | str | Unset
        if isinstance(self.assignment_id, Unset):
            assignment_id = UNSET
        elif isinstance(self.assignment_id, UUID):
            assignment_id = str(self.assignment_id)
        else:
            assignment_id = self.assignment_id

        submission_id: None | str | Unset
        if isinstance(self.submission_id, Unset):
            submission_id = UNSET
        elif isinstance(self.submission_id, UUID):
            submission_id = str(self.submission_id)
        else:
            submission_id = self.submission_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "tool_id": tool_id,
            }
        )
        if assignment_id is not UNSET:
            field_dict["assignment_id"] = assignment_id
        if submission_id is not UNSET:
            field_dict["submission_id"] = submission_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        tool_id = UUID(d.pop("tool_id"))

        def _parse_assignment_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                assignment_id_type_0 = UUID(data)

                return assignment_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        assignment_id = _parse_assignment_id(d.pop("assignment_id", UNSET))

        def _parse_submission_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                submission_id_type_0 = UUID(data)

                return submission_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        submission_id = _parse_submission_id(d.pop("submission_id", UNSET))

        create_session = cls(
            tool_id=tool_id,
            assignment_id=assignment_id,
            submission_id=submission_id,
        )

        return create_session
