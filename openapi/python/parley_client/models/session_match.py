from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionMatch")


@_attrs_define
class SessionMatch:
    """A session whose messages match a search.

    Attributes:
        message_id (UUID): Its best matching message (`GET /v1/sessions/{id}/messages` has it).
        session_id (UUID):
        snippet (str): A short excerpt of that message around the first word found (`…` where text is
            left out).
        title (str | Unset): The session's title, when it has one.
    """

    message_id: UUID
    session_id: UUID
    snippet: str
    title: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_id = str(self.message_id)

        session_id = str(self.session_id)

        snippet = self.snippet

        title = self.title

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_id": message_id,
                "session_id": session_id,
                "snippet": snippet,
            }
        )
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message_id = UUID(d.pop("message_id"))

        session_id = UUID(d.pop("session_id"))

        snippet = d.pop("snippet")

        title = d.pop("title", UNSET)

        session_match = cls(
            message_id=message_id,
            session_id=session_id,
            snippet=snippet,
            title=title,
        )

        session_match.additional_properties = d
        return session_match

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
