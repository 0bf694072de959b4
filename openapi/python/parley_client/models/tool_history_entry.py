from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_call_state import ToolCallState

T = TypeVar("T", bound="ToolHistoryEntry")


@_attrs_define
class ToolHistoryEntry:
    """One function call of a turn; entry N is the call of the `[[tool:N]]` marker.

    Attributes:
        duration_ms (int):
        input_ (Any):
        output (Any):
        status (ToolCallState): The life of one function call (`tool_calls.state`, `tool_complete.state`).
        tool_name (str):
    """

    duration_ms: int
    input_: Any
    output: Any
    status: ToolCallState
    tool_name: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        duration_ms = self.duration_ms

        input_ = self.input_

        output = self.output

        status = self.status.value

        tool_name = self.tool_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "duration_ms": duration_ms,
                "input": input_,
                "output": output,
                "status": status,
                "tool_name": tool_name,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        duration_ms = d.pop("duration_ms")

        input_ = d.pop("input")

        output = d.pop("output")

        status = ToolCallState(d.pop("status"))

        tool_name = d.pop("tool_name")

        tool_history_entry = cls(
            duration_ms=duration_ms,
            input_=input_,
            output=output,
            status=status,
            tool_name=tool_name,
        )

        tool_history_entry.additional_properties = d
        return tool_history_entry

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
