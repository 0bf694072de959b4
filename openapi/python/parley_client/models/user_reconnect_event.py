from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="UserReconnectEvent")


@_attrs_define
class UserReconnectEvent:
    """The server is shutting down: reconnect after `retry_ms` with the last `id` received
    as `Last-Event-ID`. Not stored, no `id:` line.

        Attributes:
            retry_ms (int):
    """

    retry_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        retry_ms = self.retry_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "retry_ms": retry_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        retry_ms = d.pop("retry_ms")

        user_reconnect_event = cls(
            retry_ms=retry_ms,
        )

        user_reconnect_event.additional_properties = d
        return user_reconnect_event

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
