from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stream_event_reset_event_type import StreamEventResetEventType

T = TypeVar("T", bound="StreamEventResetEvent")


@_attrs_define
class StreamEventResetEvent:
    """Every event type, told apart by `type`.

    Attributes:
        prompt_id (UUID):
        seq (int):
        type_ (StreamEventResetEventType):  Example: reset.
    """

    prompt_id: UUID
    seq: int
    type_: StreamEventResetEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        prompt_id = str(self.prompt_id)

        seq = self.seq

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "prompt_id": prompt_id,
                "seq": seq,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        prompt_id = UUID(d.pop("prompt_id"))

        seq = d.pop("seq")

        type_ = StreamEventResetEventType(d.pop("type"))

        stream_event_reset_event = cls(
            prompt_id=prompt_id,
            seq=seq,
            type_=type_,
        )

        stream_event_reset_event.additional_properties = d
        return stream_event_reset_event

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
