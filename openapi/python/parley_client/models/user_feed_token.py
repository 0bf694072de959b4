from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserFeedToken")


@_attrs_define
class UserFeedToken:
    """A credential that opens the caller's user feed and nothing else.

    Attributes:
        expires_at (datetime.datetime):
        feed_url (str): The feed's URL with the token in it.
        token (str): Pass it as `?access_token=` to `/v1/feed`. Secret; it expires.
    """

    expires_at: datetime.datetime
    feed_url: str
    token: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        expires_at = self.expires_at.isoformat()

        feed_url = self.feed_url

        token = self.token

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "expires_at": expires_at,
                "feed_url": feed_url,
                "token": token,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        feed_url = d.pop("feed_url")

        token = d.pop("token")

        user_feed_token = cls(
            expires_at=expires_at,
            feed_url=feed_url,
            token=token,
        )

        user_feed_token.additional_properties = d
        return user_feed_token

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
