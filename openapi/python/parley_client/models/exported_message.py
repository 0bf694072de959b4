from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.exported_role import ExportedRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.exported_tool_call import ExportedToolCall


T = TypeVar("T", bound="ExportedMessage")


@_attrs_define
class ExportedMessage:
    """A message of an exported conversation.

    Attributes:
        role (ExportedRole): Who speaks in a message of an exported conversation.
        content (str | Unset): The text as stored (redacted where a module redacted it); absent on an assistant
            message that only calls functions.
        tool_call_id (str | Unset): A `tool` message's call.
        tool_calls (list[ExportedToolCall] | Unset): An assistant message's function calls, each answered by a `tool`
            message.
    """

    role: ExportedRole
    content: str | Unset = UNSET
    tool_call_id: str | Unset = UNSET
    tool_calls: list[ExportedToolCall] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        role = self.role.value

        content = self.content

        tool_call_id = self.tool_call_id

        tool_calls: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_calls, Unset):
            tool_calls = []
            for tool_calls_item_data in self.tool_calls:
                tool_calls_item = tool_calls_item_data.to_dict()
                tool_calls.append(tool_calls_item)

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
        from ..models.exported_tool_call import ExportedToolCall

        d = dict(src_dict)
        role = ExportedRole(d.pop("role"))

        content = d.pop("content", UNSET)

        tool_call_id = d.pop("tool_call_id", UNSET)

        _tool_calls = d.pop("tool_calls", UNSET)
        tool_calls: list[ExportedToolCall] | Unset = UNSET
        if _tool_calls is not UNSET:
            tool_calls = []
            for tool_calls_item_data in _tool_calls:
                tool_calls_item = ExportedToolCall.from_dict(tool_calls_item_data)

                tool_calls.append(tool_calls_item)

        exported_message = cls(
            role=role,
            content=content,
            tool_call_id=tool_call_id,
            tool_calls=tool_calls,
        )

        exported_message.additional_properties = d
        return exported_message

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
