from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.call_error import CallError
from ..types import UNSET, Unset

T = TypeVar("T", bound="UsageCall")


@_attrs_define
class UsageCall:
    """One LLM call, with its user's and tool's names.

    Attributes:
        cache_write_tokens (int): Input written to the provider's prompt cache.
        cached_input_tokens (int): Input read from the provider's prompt cache.
        cost_usd (float): At the model's prices (per kind) when the call was recorded.
        created_at (datetime.datetime):
        currency (str): Always `USD`.
        id (UUID):
        input_tokens (int): Every input token; the two below are parts of it.
        latency_ms (int):
        model (str):
        output_tokens (int): Every output token; `reasoning_tokens` is a part of it.
        prompt_id (UUID):
        reasoning_tokens (int): Output the model spent thinking.
        session_id (UUID):
        tool_id (UUID):
        user_id (UUID):
        vendor (str):
        error (CallError | Unset): How one provider call failed (`ai_usage.error`; absent: it did not fail), for the
            providers' error rates and last errors (`GET /v1/admin/providers`).
        message_id (UUID | Unset): The answer the call produced, when it produced one.
        tool_name (str | Unset):
        ttft_ms (int | Unset): Absent when no token came.
        user_email (str | Unset):
        user_name (str | Unset): Absent when the user was deleted.
    """

    cache_write_tokens: int
    cached_input_tokens: int
    cost_usd: float
    created_at: datetime.datetime
    currency: str
    id: UUID
    input_tokens: int
    latency_ms: int
    model: str
    output_tokens: int
    prompt_id: UUID
    reasoning_tokens: int
    session_id: UUID
    tool_id: UUID
    user_id: UUID
    vendor: str
    error: CallError | Unset = UNSET
    message_id: UUID | Unset = UNSET
    tool_name: str | Unset = UNSET
    ttft_ms: int | Unset = UNSET
    user_email: str | Unset = UNSET
    user_name: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_write_tokens = self.cache_write_tokens

        cached_input_tokens = self.cached_input_tokens

        cost_usd = self.cost_usd

        created_at = self.created_at.isoformat()

        currency = self.currency

        id = str(self.id)

        input_tokens = self.input_tokens

        latency_ms = self.latency_ms

        model = self.model

        output_tokens = self.output_tokens

        prompt_id = str(self.prompt_id)

        reasoning_tokens = self.reasoning_tokens

        session_id = str(self.session_id)

        tool_id = str(self.tool_id)

        user_id = str(self.user_id)

        vendor = self.vendor

        error: str | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.value

        message_id: str | Unset = UNSET
        if not isinstance(self.message_id, Unset):
            message_id = str(self.message_id)

        tool_name = self.tool_name

        ttft_ms = self.ttft_ms

        user_email = self.user_email

        user_name = self.user_name

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_write_tokens": cache_write_tokens,
                "cached_input_tokens": cached_input_tokens,
                "cost_usd": cost_usd,
                "created_at": created_at,
                "currency": currency,
                "id": id,
                "input_tokens": input_tokens,
                "latency_ms": latency_ms,
                "model": model,
                "output_tokens": output_tokens,
                "prompt_id": prompt_id,
                "reasoning_tokens": reasoning_tokens,
                "session_id": session_id,
                "tool_id": tool_id,
                "user_id": user_id,
                "vendor": vendor,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if message_id is not UNSET:
            field_dict["message_id"] = message_id
        if tool_name is not UNSET:
            field_dict["tool_name"] = tool_name
        if ttft_ms is not UNSET:
            field_dict["ttft_ms"] = ttft_ms
        if user_email is not UNSET:
            field_dict["user_email"] = user_email
        if user_name is not UNSET:
            field_dict["user_name"] = user_name

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_write_tokens = d.pop("cache_write_tokens")

        cached_input_tokens = d.pop("cached_input_tokens")

        cost_usd = d.pop("cost_usd")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = d.pop("currency")

        id = UUID(d.pop("id"))

        input_tokens = d.pop("input_tokens")

        latency_ms = d.pop("latency_ms")

        model = d.pop("model")

        output_tokens = d.pop("output_tokens")

        prompt_id = UUID(d.pop("prompt_id"))

        reasoning_tokens = d.pop("reasoning_tokens")

        session_id = UUID(d.pop("session_id"))

        tool_id = UUID(d.pop("tool_id"))

        user_id = UUID(d.pop("user_id"))

        vendor = d.pop("vendor")

        _error = d.pop("error", UNSET)
        error: CallError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = CallError(_error)

        _message_id = d.pop("message_id", UNSET)
        message_id: UUID | Unset
        if isinstance(_message_id, Unset):
            message_id = UNSET
        else:
            message_id = UUID(_message_id)

        tool_name = d.pop("tool_name", UNSET)

        ttft_ms = d.pop("ttft_ms", UNSET)

        user_email = d.pop("user_email", UNSET)

        user_name = d.pop("user_name", UNSET)

        usage_call = cls(
            cache_write_tokens=cache_write_tokens,
            cached_input_tokens=cached_input_tokens,
            cost_usd=cost_usd,
            created_at=created_at,
            currency=currency,
            id=id,
            input_tokens=input_tokens,
            latency_ms=latency_ms,
            model=model,
            output_tokens=output_tokens,
            prompt_id=prompt_id,
            reasoning_tokens=reasoning_tokens,
            session_id=session_id,
            tool_id=tool_id,
            user_id=user_id,
            vendor=vendor,
            error=error,
            message_id=message_id,
            tool_name=tool_name,
            ttft_ms=ttft_ms,
            user_email=user_email,
            user_name=user_name,
        )

        usage_call.additional_properties = d
        return usage_call

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
