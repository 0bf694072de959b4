from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.user_event_name import UserEventName
from ..types import UNSET, Unset

T = TypeVar("T", bound="UserSseEvent")


@_attrs_define
class UserSseEvent:
    """One Server-Sent Event of the user feed, as an SSE client sees it.

    Attributes:
        data (str): A `UserEvent` as JSON (see that schema), whose `type` is `event`.
        event (UserEventName): The `event:` names of the user feed: each is the `type` of the event in `data`.
        id (str | Unset): The event's `seq` (absent on `ping`, `reconnect` and `reset`): send it back as
            `Last-Event-ID` to resume.
    """

    data: str
    event: UserEventName
    id: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        data = self.data

        event = self.event.value

        id = self.id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "data": data,
                "event": event,
            }
        )
        if id is not UNSET:
            field_dict["id"] = id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        data = d.pop("data")

        event = UserEventName(d.pop("event"))

        id = d.pop("id", UNSET)

        user_sse_event = cls(
            data=data,
            event=event,
            id=id,
        )

        user_sse_event.additional_properties = d
        return user_sse_event

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
