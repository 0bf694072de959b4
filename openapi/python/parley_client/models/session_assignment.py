from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="SessionAssignment")


@_attrs_define
class SessionAssignment:
    """The assignment of a session, as its configuration carries it (the "Assignment
    Context" section of the system prompt, `getAssignmentInfo`).

        Attributes:
            id (UUID):
            instructions (str):
            title (str):
    """

    id: UUID
    instructions: str
    title: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        id = str(self.id)

        instructions = self.instructions

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "id": id,
                "instructions": instructions,
                "title": title,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        id = UUID(d.pop("id"))

        instructions = d.pop("instructions")

        title = d.pop("title")

        session_assignment = cls(
            id=id,
            instructions=instructions,
            title=title,
        )

        session_assignment.additional_properties = d
        return session_assignment

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
