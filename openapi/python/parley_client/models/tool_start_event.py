from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ToolStartEvent")


@_attrs_define
class ToolStartEvent:
    """A function call starts.

    Attributes:
        block_index (int):
        index (int):
        input_ (Any):
        prompt_id (UUID):
        seq (int):
        tool (str):
        tool_use_id (str):
    """

    block_index: int
    index: int
    input_: Any
    prompt_id: UUID
    seq: int
    tool: str
    tool_use_id: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        block_index = self.block_index

        index = self.index

        input_ = self.input_

        prompt_id = str(self.prompt_id)

        seq = self.seq

        tool = self.tool

        tool_use_id = self.tool_use_id

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "block_index": block_index,
                "index": index,
                "input": input_,
                "prompt_id": prompt_id,
                "seq": seq,
                "tool": tool,
                "tool_use_id": tool_use_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        block_index = d.pop("block_index")

        index = d.pop("index")

        input_ = d.pop("input")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        tool = d.pop("tool")

        tool_use_id = d.pop("tool_use_id")

        tool_start_event = cls(
            block_index=block_index,
            index=index,
            input_=input_,
            prompt_id=prompt_id,
            seq=seq,
            tool=tool,
            tool_use_id=tool_use_id,
        )

        tool_start_event.additional_properties = d
        return tool_start_event

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
