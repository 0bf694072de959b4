from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResponseStreamEvent")


@_attrs_define
class ResponseStreamEvent:
    """One event of a response's stream (`event: <type>`, `data: {…}`): `response.created`,
    `response.queued`, `response.in_progress`, `response.output_item.added`,
    `response.content_part.added`, `response.output_text.delta`,
    `response.output_text.done`, `response.content_part.done`,
    `response.output_item.done`, `response.function_call_arguments.delta`,
    `response.function_call_arguments.done`, `response.mcp_call_arguments.delta`,
    `response.mcp_call_arguments.done`, `response.mcp_call.in_progress`,
    `response.mcp_call.completed`, `response.mcp_call.failed`, and one terminal event:
    `response.completed`, `response.failed` or `response.incomplete` (a cancelled
    response: `response.incomplete` with `response.status` `cancelled`). Numbered from 0,
    the same on every replay while the prompt's events are kept.

        Attributes:
            sequence_number (int):
            type_ (str):
    """

    sequence_number: int
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        sequence_number = self.sequence_number

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "sequence_number": sequence_number,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        sequence_number = d.pop("sequence_number")

        type_ = d.pop("type")

        response_stream_event = cls(
            sequence_number=sequence_number,
            type_=type_,
        )

        response_stream_event.additional_properties = d
        return response_stream_event

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
