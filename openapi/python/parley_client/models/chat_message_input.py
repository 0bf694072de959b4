from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_role import ChatRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_content_part import ChatContentPart
    from ..models.chat_tool_call import ChatToolCall


T = TypeVar("T", bound="ChatMessageInput")


@_attrs_define
class ChatMessageInput:
    """One message of a chat completion request.

    Attributes:
        role (ChatRole): Who wrote a chat message.
        content (list[ChatContentPart] | None | str | Unset): Absent or null on an assistant message that only called
            tools.
        tool_call_id (None | str | Unset): A `tool` message's: the call it answers (the `id` of one of the `tool_calls`
            a
            completion returned).
        tool_calls (list[ChatToolCall] | None | Unset): An assistant message's calls of the caller's functions (as a
            completion returned
            them).
    """

    role: ChatRole
    content: list[ChatContentPart] | None | str | Unset = UNSET
    tool_call_id: None | str | Unset = UNSET
    tool_calls: list[ChatToolCall] | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        content: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for componentsschemas_chat_content_type_1_item_data in self.content:
                componentsschemas_chat_content_type_1_item = (
                    componentsschemas_chat_content_type_1_item_data.to_dict()
                )
                content.append(componentsschemas_chat_content_type_1_item)

        else:
            content = self.content

        tool_call_id: None | str | Unset
        if isinstance(self.tool_call_id, Unset):
            tool_call_id = UNSET
        else:
            tool_call_id = self.tool_call_id

        tool_calls: list[dict[str, Any]] | None | Unset
        if isinstance(self.tool_calls, Unset):
            tool_calls = UNSET
        elif isinstance(self.tool_calls, list):
            tool_calls = []
            for tool_calls_type_0_item_data in self.tool_calls:
                tool_calls_type_0_item = tool_calls_type_0_item_data.to_dict()
                tool_calls.append(tool_calls_type_0_item)

        else:
            tool_calls = self.tool_calls

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "role": role,
            }
        )
        if content is not UNSET:
            field_dict["content"] = content
        if tool_call_id is not UNSET:
            field_dict["tool_call_id"] = tool_call_id
        if tool_calls is not UNSET:
            field_dict["tool_calls"] = tool_calls

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_content_part import ChatContentPart
        from ..models.chat_tool_call import ChatToolCall

        d = dict(src_dict)
        role = ChatRole(d.pop("role"))

        def _parse_content(data: object) -> list[ChatContentPart] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_chat_content_type_1 = []
                _componentsschemas_chat_content_type_1 = data
                for (
                    componentsschemas_chat_content_type_1_item_data
                ) in _componentsschemas_chat_content_type_1:
                    componentsschemas_chat_content_type_1_item = (
                        ChatContentPart.from_dict(
                            componentsschemas_chat_content_type_1_item_data
                        )
                    )

                    componentsschemas_chat_content_type_1.append(
                        componentsschemas_chat_content_type_1_item
                    )

                return componentsschemas_chat_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChatContentPart] | None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        def _parse_tool_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        tool_call_id = _parse_tool_call_id(d.pop("tool_call_id", UNSET))

        def _parse_tool_calls(data: object) -> list[ChatToolCall] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tool_calls_type_0 = []
                _tool_calls_type_0 = data
                for tool_calls_type_0_item_data in _tool_calls_type_0:
                    tool_calls_type_0_item = ChatToolCall.from_dict(
                        tool_calls_type_0_item_data
                    )

                    tool_calls_type_0.append(tool_calls_type_0_item)

                return tool_calls_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChatToolCall] | None | Unset, data)

        tool_calls = _parse_tool_calls(d.pop("tool_calls", UNSET))

        chat_message_input = cls(
            role=role,
            content=content,
            tool_call_id=tool_call_id,
            tool_calls=tool_calls,
        )

        chat_message_input.additional_properties = d
        return chat_message_input

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
