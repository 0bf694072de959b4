from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stream_event_tool_complete_event_type import (
    StreamEventToolCompleteEventType,
)
from ..models.tool_call_state import ToolCallState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.custom_payload import CustomPayload


T = TypeVar("T", bound="StreamEventToolCompleteEvent")


@_attrs_define
class StreamEventToolCompleteEvent:
    """Every event type, told apart by `type`.

    Attributes:
        duration_ms (int):
        index (int):
        output (Any):
        prompt_id (UUID):
        seq (int):
        state (ToolCallState): The life of one function call (`tool_calls.state`, `tool_complete.state`).
        tool (str):
        tool_use_id (str):
        type_ (StreamEventToolCompleteEventType):  Example: tool_complete.
        payload (CustomPayload | Unset): A structured payload attached to a response.
    """

    duration_ms: int
    index: int
    output: Any
    prompt_id: UUID
    seq: int
    state: ToolCallState
    tool: str
    tool_use_id: str
    type_: StreamEventToolCompleteEventType
    payload: CustomPayload | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        duration_ms = self.duration_ms

        index = self.index

        output = self.output

        prompt_id = str(self.prompt_id)

        seq = self.seq

        state = self.state.value

        tool = self.tool

        tool_use_id = self.tool_use_id

        type_ = self.type_.value

        payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.payload, Unset):
            payload = self.payload.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "duration_ms": duration_ms,
                "index": index,
                "output": output,
                "prompt_id": prompt_id,
                "seq": seq,
                "state": state,
                "tool": tool,
                "tool_use_id": tool_use_id,
                "type": type_,
            }
        )
        if payload is not UNSET:
            field_dict["payload"] = payload

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custom_payload import CustomPayload

        d = dict(src_dict)
        duration_ms = d.pop("duration_ms")

        index = d.pop("index")

        output = d.pop("output")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        state = ToolCallState(d.pop("state"))

        tool = d.pop("tool")

        tool_use_id = d.pop("tool_use_id")

        type_ = StreamEventToolCompleteEventType(d.pop("type"))

        _payload = d.pop("payload", UNSET)
        payload: CustomPayload | Unset
        if isinstance(_payload, Unset):
            payload = UNSET
        else:
            payload = CustomPayload.from_dict(_payload)

        stream_event_tool_complete_event = cls(
            duration_ms=duration_ms,
            index=index,
            output=output,
            prompt_id=prompt_id,
            seq=seq,
            state=state,
            tool=tool,
            tool_use_id=tool_use_id,
            type_=type_,
            payload=payload,
        )

        stream_event_tool_complete_event.additional_properties = d
        return stream_event_tool_complete_event

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
