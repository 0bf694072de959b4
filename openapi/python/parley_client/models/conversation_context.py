from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_message import ConversationMessage


T = TypeVar("T", bound="ConversationContext")


@_attrs_define
class ConversationContext:
    """The conversation so far (oldest first) and the message of this turn.

    Attributes:
        messages (list[ConversationMessage]):
        current_message (ConversationMessage | Unset):
    """

    messages: list[ConversationMessage]
    current_message: ConversationMessage | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        current_message: dict[str, Any] | Unset = UNSET
        if not isinstance(self.current_message, Unset):
            current_message = self.current_message.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if current_message is not UNSET:
            field_dict["current_message"] = current_message

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conversation_message import ConversationMessage

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ConversationMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        _current_message = d.pop("current_message", UNSET)
        current_message: ConversationMessage | Unset
        if isinstance(_current_message, Unset):
            current_message = UNSET
        else:
            current_message = ConversationMessage.from_dict(_current_message)

        conversation_context = cls(
            messages=messages,
            current_message=current_message,
        )

        conversation_context.additional_properties = d
        return conversation_context

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
