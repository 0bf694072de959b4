from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_code import ErrorCode
from ..models.stream_event_error_event_type import StreamEventErrorEventType

T = TypeVar("T", bound="StreamEventErrorEvent")


@_attrs_define
class StreamEventErrorEvent:
    """Every event type, told apart by `type`.

    Attributes:
        code (ErrorCode): Why a generation stopped with an error (DESIGN §6): the `code` of an `error` event
            and what `prompts.error_code` stores.
        message (str):
        prompt_id (UUID):
        retryable (bool): Whether `POST /v1/prompts/{id}/resume` may succeed.
        seq (int):
        type_ (StreamEventErrorEventType):  Example: error.
    """

    code: ErrorCode
    message: str
    prompt_id: UUID
    retryable: bool
    seq: int
    type_: StreamEventErrorEventType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message = self.message

        prompt_id = str(self.prompt_id)

        retryable = self.retryable

        seq = self.seq

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
                "prompt_id": prompt_id,
                "retryable": retryable,
                "seq": seq,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = ErrorCode(d.pop("code"))

        message = d.pop("message")

        prompt_id = UUID(d.pop("prompt_id"))

        retryable = d.pop("retryable")

        seq = d.pop("seq")

        type_ = StreamEventErrorEventType(d.pop("type"))

        stream_event_error_event = cls(
            code=code,
            message=message,
            prompt_id=prompt_id,
            retryable=retryable,
            seq=seq,
            type_=type_,
        )

        stream_event_error_event.additional_properties = d
        return stream_event_error_event

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
