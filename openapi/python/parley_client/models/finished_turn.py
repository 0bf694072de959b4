from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.fallback_reason import FallbackReason
from ..models.stop_reason import StopReason
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_response_payload import ChatResponsePayload
    from ..models.usage import Usage


T = TypeVar("T", bound="FinishedTurn")


@_attrs_define
class FinishedTurn:
    """A finished turn (`Accept: application/json`): the fields of its `complete` event.

    Attributes:
        blocked (bool): A module blocked the message or the answer; `payload.message` is its direct
            response.
        latency_ms (int):
        message_id (UUID):
        model (str):
        payload (ChatResponsePayload): The final response of a turn (seed `ChatResponsePayload`).
        prompt_id (UUID):
        usage (Usage): Token counts of a turn, summed over its LLM calls, by kind. `input_tokens` and
            `output_tokens` count every token; `cached_input_tokens` and `cache_write_tokens` are
            the parts of the input read from and written to the provider's prompt cache,
            `reasoning_tokens` the part of the output the model spent thinking (0 when the
            provider did not report them).
        vendor (str):
        block_category (str | Unset): The category of the block, when `blocked`.
        fallback_from (str | Unset): The model asked for, when another model of its fallback chain answered (`model`).
        fallback_reason (FallbackReason | Unset): Why a turn left the model it asked for for the next one in the model's
            fallback
            chain (DESIGN §10): the `reason` of a `fallback` event and of `complete`.
        parent_id (UUID | Unset): The message the answer follows: the user message it answers.
        replaced (bool | Unset): A module replaced the answer after it was streamed; `payload.message` is final.
        stop_reason (StopReason | Unset): Why an answer stopped before the model was done with it: the `stop_reason` of
            `complete` (absent: the model finished).
    """

    blocked: bool
    latency_ms: int
    message_id: UUID
    model: str
    payload: ChatResponsePayload
    prompt_id: UUID
    usage: Usage
    vendor: str
    block_category: str | Unset = UNSET
    fallback_from: str | Unset = UNSET
    fallback_reason: FallbackReason | Unset = UNSET
    parent_id: UUID | Unset = UNSET
    replaced: bool | Unset = UNSET
    stop_reason: StopReason | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blocked = self.blocked

        latency_ms = self.latency_ms

        message_id = str(self.message_id)

        model = self.model

        payload = self.payload.to_dict()

        prompt_id = str(self.prompt_id)

        usage = self.usage.to_dict()

        vendor = self.vendor

        block_category = self.block_category

        fallback_from = self.fallback_from

        fallback_reason: str | Unset = UNSET
        if not isinstance(self.fallback_reason, Unset):
            fallback_reason = self.fallback_reason.value

        parent_id: str | Unset = UNSET
        if not isinstance(self.parent_id, Unset):
            parent_id = str(self.parent_id)

        replaced = self.replaced

        stop_reason: str | Unset = UNSET
        if not isinstance(self.stop_reason, Unset):
            stop_reason = self.stop_reason.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocked": blocked,
                "latency_ms": latency_ms,
                "message_id": message_id,
                "model": model,
                "payload": payload,
                "prompt_id": prompt_id,
                "usage": usage,
                "vendor": vendor,
            }
        )
        if block_category is not UNSET:
            field_dict["block_category"] = block_category
        if fallback_from is not UNSET:
            field_dict["fallback_from"] = fallback_from
        if fallback_reason is not UNSET:
            field_dict["fallback_reason"] = fallback_reason
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id
        if replaced is not UNSET:
            field_dict["replaced"] = replaced
        if stop_reason is not UNSET:
            field_dict["stop_reason"] = stop_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_response_payload import ChatResponsePayload
        from ..models.usage import Usage

        d = dict(src_dict)
        blocked = d.pop("blocked")

        latency_ms = d.pop("latency_ms")

        message_id = UUID(d.pop("message_id"))

        model = d.pop("model")

        payload = ChatResponsePayload.from_dict(d.pop("payload"))

        prompt_id = UUID(d.pop("prompt_id"))

        usage = Usage.from_dict(d.pop("usage"))

        vendor = d.pop("vendor")

        block_category = d.pop("block_category", UNSET)

        fallback_from = d.pop("fallback_from", UNSET)

        _fallback_reason = d.pop("fallback_reason", UNSET)
        fallback_reason: FallbackReason | Unset
        if isinstance(_fallback_reason, Unset):
            fallback_reason = UNSET
        else:
            fallback_reason = FallbackReason(_fallback_reason)

        _parent_id = d.pop("parent_id", UNSET)
        parent_id: UUID | Unset
        if isinstance(_parent_id, Unset):
            parent_id = UNSET
        else:
            parent_id = UUID(_parent_id)

        replaced = d.pop("replaced", UNSET)

        _stop_reason = d.pop("stop_reason", UNSET)
        stop_reason: StopReason | Unset
        if isinstance(_stop_reason, Unset):
            stop_reason = UNSET
        else:
            stop_reason = StopReason(_stop_reason)

        finished_turn = cls(
            blocked=blocked,
            latency_ms=latency_ms,
            message_id=message_id,
            model=model,
            payload=payload,
            prompt_id=prompt_id,
            usage=usage,
            vendor=vendor,
            block_category=block_category,
            fallback_from=fallback_from,
            fallback_reason=fallback_reason,
            parent_id=parent_id,
            replaced=replaced,
            stop_reason=stop_reason,
        )

        finished_turn.additional_properties = d
        return finished_turn

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
