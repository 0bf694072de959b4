from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fallback_reason import FallbackReason

T = TypeVar("T", bound="FallbackEvent")


@_attrs_define
class FallbackEvent:
    """The model asked for failed before answering, or may not be called now (its
    provider's breaker, or this user's, is open); the next model of its fallback chain
    answers. `from` streamed nothing.

        Attributes:
            from_ (str):
            prompt_id (UUID):
            reason (FallbackReason): Why a turn left the model it asked for for the next one in the model's fallback
                chain (DESIGN §10): the `reason` of a `fallback` event and of `complete`.
            seq (int):
            to (str):
    """

    from_: str
    prompt_id: UUID
    reason: FallbackReason
    seq: int
    to: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from_ = self.from_

        prompt_id = str(self.prompt_id)

        reason = self.reason.value

        seq = self.seq

        to = self.to

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "from": from_,
                "prompt_id": prompt_id,
                "reason": reason,
                "seq": seq,
                "to": to,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        from_ = d.pop("from")

        prompt_id = UUID(d.pop("prompt_id"))

        reason = FallbackReason(d.pop("reason"))

        seq = d.pop("seq")

        to = d.pop("to")

        fallback_event = cls(
            from_=from_,
            prompt_id=prompt_id,
            reason=reason,
            seq=seq,
            to=to,
        )

        fallback_event.additional_properties = d
        return fallback_event

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
