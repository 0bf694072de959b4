from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_user_reset_event_type import UserEventUserResetEventType

T = TypeVar("T", bound="UserEventUserResetEvent")


@_attrs_define
class UserEventUserResetEvent:
    """Every event type of the user feed, told apart by `type`.

    Attributes:
        type_ (UserEventUserResetEventType):  Example: reset.
    """

    type_: UserEventUserResetEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = UserEventUserResetEventType(d.pop("type"))

        user_event_user_reset_event = cls(
            type_=type_,
        )

        user_event_user_reset_event.additional_properties = d
        return user_event_user_reset_event

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
