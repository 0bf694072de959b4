from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.replayed_message import ReplayedMessage


T = TypeVar("T", bound="Replay")


@_attrs_define
class Replay:
    """The messages of one conversation, oldest first.

    Attributes:
        message_count (int):
        messages (list[ReplayedMessage]):
        rid (str):
        session_id (UUID):
    """

    message_count: int
    messages: list[ReplayedMessage]
    rid: str
    session_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message_count = self.message_count

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        rid = self.rid

        session_id = str(self.session_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message_count": message_count,
                "messages": messages,
                "rid": rid,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.replayed_message import ReplayedMessage

        d = dict(src_dict)
        message_count = d.pop("message_count")

        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ReplayedMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        rid = d.pop("rid")

        session_id = UUID(d.pop("session_id"))

        replay = cls(
            message_count=message_count,
            messages=messages,
            rid=rid,
            session_id=session_id,
        )

        replay.additional_properties = d
        return replay

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
