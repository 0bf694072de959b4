from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.stream_event_retry_event_type import StreamEventRetryEventType

T = TypeVar("T", bound="StreamEventRetryEvent")


@_attrs_define
class StreamEventRetryEvent:
    """Every event type, told apart by `type`.

    Attributes:
        attempt (int):
        prompt_id (UUID):
        reason (str):
        seq (int):
        type_ (StreamEventRetryEventType):  Example: retry.
    """

    attempt: int
    prompt_id: UUID
    reason: str
    seq: int
    type_: StreamEventRetryEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        prompt_id = str(self.prompt_id)

        reason = self.reason

        seq = self.seq

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "prompt_id": prompt_id,
                "reason": reason,
                "seq": seq,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        attempt = d.pop("attempt")

        prompt_id = UUID(d.pop("prompt_id"))

        reason = d.pop("reason")

        seq = d.pop("seq")

        type_ = StreamEventRetryEventType(d.pop("type"))

        stream_event_retry_event = cls(
            attempt=attempt,
            prompt_id=prompt_id,
            reason=reason,
            seq=seq,
            type_=type_,
        )

        stream_event_retry_event.additional_properties = d
        return stream_event_retry_event

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
