from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stream_event_client_call_requested_event_type import (
    StreamEventClientCallRequestedEventType,
)

T = TypeVar("T", bound="StreamEventClientCallRequestedEvent")


@_attrs_define
class StreamEventClientCallRequestedEvent:
    """Every event type, told apart by `type`.

    Attributes:
        call_id (UUID): The call whose result to post.
        expires_at (datetime.datetime):
        index (int): The call's `N`, as in `tool_start`.
        input_ (Any): The arguments (JSON that fits the function's `parameters`).
        prompt_id (UUID):
        seq (int):
        tool (str): The function's name.
        tool_use_id (str):
        type_ (StreamEventClientCallRequestedEventType):  Example: client_call_requested.
    """

    call_id: UUID
    expires_at: datetime.datetime
    index: int
    input_: Any
    prompt_id: UUID
    seq: int
    tool: str
    tool_use_id: str
    type_: StreamEventClientCallRequestedEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        call_id = str(self.call_id)

        expires_at = self.expires_at.isoformat()

        index = self.index

        input_ = self.input_

        prompt_id = str(self.prompt_id)

        seq = self.seq

        tool = self.tool

        tool_use_id = self.tool_use_id

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "call_id": call_id,
                "expires_at": expires_at,
                "index": index,
                "input": input_,
                "prompt_id": prompt_id,
                "seq": seq,
                "tool": tool,
                "tool_use_id": tool_use_id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        call_id = UUID(d.pop("call_id"))

        expires_at = datetime.datetime.fromisoformat(d.pop("expires_at"))

        index = d.pop("index")

        input_ = d.pop("input")

        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        tool = d.pop("tool")

        tool_use_id = d.pop("tool_use_id")

        type_ = StreamEventClientCallRequestedEventType(d.pop("type"))

        stream_event_client_call_requested_event = cls(
            call_id=call_id,
            expires_at=expires_at,
            index=index,
            input_=input_,
            prompt_id=prompt_id,
            seq=seq,
            tool=tool,
            tool_use_id=tool_use_id,
            type_=type_,
        )

        stream_event_client_call_requested_event.additional_properties = d
        return stream_event_client_call_requested_event

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
