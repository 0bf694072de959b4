from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_code import ErrorCode

T = TypeVar("T", bound="ErrorEvent")


@_attrs_define
class ErrorEvent:
    """Terminal: the turn failed.

    Attributes:
        code (ErrorCode): Why a generation stopped with an error (DESIGN §6): the `code` of an `error` event
            and what `prompts.error_code` stores.
        message (str):
        prompt_id (UUID):
        retryable (bool): Whether `POST /v1/prompts/{id}/resume` may succeed.
        seq (int):
    """

    code: ErrorCode
    message: str
    prompt_id: UUID
    retryable: bool
    seq: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code.value

        message = self.message

        prompt_id = str(self.prompt_id)

        retryable = self.retryable

        seq = self.seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "message": message,
                "prompt_id": prompt_id,
                "retryable": retryable,
                "seq": seq,
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

        error_event = cls(
            code=code,
            message=message,
            prompt_id=prompt_id,
            retryable=retryable,
            seq=seq,
        )

        error_event.additional_properties = d
        return error_event

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
