from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exported_message import ExportedMessage
    from ..models.exported_tool import ExportedTool


T = TypeVar("T", bound="ExportedConversation")


@_attrs_define
class ExportedConversation:
    """One line of the export: a conversation (a session's active branch) in OpenAI's chat
    fine-tuning format.

        Attributes:
            messages (list[ExportedMessage]): First to last: the system prompt, then the branch's messages; an answer that
                called functions is its calls' assistant messages and their `tool` results,
                then its text.
            tools (list[ExportedTool] | Unset): The functions the session offered (absent when none).
    """

    messages: list[ExportedMessage]
    tools: list[ExportedTool] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        tools: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tools, Unset):
            tools = []
            for tools_item_data in self.tools:
                tools_item = tools_item_data.to_dict()
                tools.append(tools_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
            }
        )
        if tools is not UNSET:
            field_dict["tools"] = tools

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.exported_message import ExportedMessage
        from ..models.exported_tool import ExportedTool

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ExportedMessage.from_dict(messages_item_data)

            messages.append(messages_item)

        _tools = d.pop("tools", UNSET)
        tools: list[ExportedTool] | Unset = UNSET
        if _tools is not UNSET:
            tools = []
            for tools_item_data in _tools:
                tools_item = ExportedTool.from_dict(tools_item_data)

                tools.append(tools_item)

        exported_conversation = cls(
            messages=messages,
            tools=tools,
        )

        exported_conversation.additional_properties = d
        return exported_conversation

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
