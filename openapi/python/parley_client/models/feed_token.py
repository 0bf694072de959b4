from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FeedToken")


@_attrs_define
class FeedToken:
    """A credential that opens one prompt's event feed, for clients that cannot send an
    `Authorization` header (a browser's `EventSource`).

        Attributes:
            events_url (str): The events URL with the token in it.
            expires_at (datetime.datetime):
            token (str): Pass it as `?access_token=` to the events URL. Secret; it expires.
    """

    events_url: str
    expires_at: datetime.datetime
    token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        events_url = self.events_url

        expires_at = self.expires_at.isoformat()

        token = self.token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "events_url": events_url,
                "expires_at": expires_at,
                "token": token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        events_url = d.pop("events_url")

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        token = d.pop("token")

        feed_token = cls(
            events_url=events_url,
            expires_at=expires_at,
            token=token,
        )

        feed_token.additional_properties = d
        return feed_token

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
