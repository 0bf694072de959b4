from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolProgressEvent")


@_attrs_define
class ToolProgressEvent:
    """Progress of a running function call.

    Attributes:
        index (int):
        message (str):
        progress (float): From 0 to 1.
        prompt_id (UUID):
        seq (int):
        stage (str):
        tool (str):
        data (Any | Unset):
    """

    index: int
    message: str
    progress: float
    prompt_id: UUID
    seq: int
    stage: str
    tool: str
    data: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        index = self.index

        message = self.message

        progress = self.progress

        prompt_id = str(self.prompt_id)

        seq = self.seq

        stage = self.stage

        tool = self.tool

        data = self.data

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "index": index,
                "message": message,
                "progress": progress,
                "prompt_id": prompt_id,
                "seq": seq,
                "stage": stage,
                "tool": tool,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        index = d.pop("index")

        message = d.pop("message")

        progress = d.pop("progress")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        stage = d.pop("stage")

        tool = d.pop("tool")

        data = d.pop("data", UNSET)

        tool_progress_event = cls(
            index=index,
            message=message,
            progress=progress,
            prompt_id=prompt_id,
            seq=seq,
            stage=stage,
            tool=tool,
            data=data,
        )

        tool_progress_event.additional_properties = d
        return tool_progress_event

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
