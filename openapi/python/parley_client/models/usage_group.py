from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="UsageGroup")


@_attrs_define
class UsageGroup:
    """The LLM calls of one group: a day, a model, a user, a tool or a group.

    Attributes:
        cache_write_tokens (int): Input written to the providers' prompt caches.
        cached_input_tokens (int): Input read from the providers' prompt caches.
        calls (int): LLM calls (a turn makes one per round of its function-calling loop; cancelled
            and failed calls count).
        cost_usd (float): The calls' cost in US dollars, at the model's prices when each call was recorded.
        currency (str): The currency of `cost_usd`: always `USD`.
        input_tokens (int): Every input token; the two below are parts of it.
        key (str): The day (`YYYY-MM-DD`, UTC), the model id, or the user's, tool's or group's id,
            as `group_by` asked.
        output_tokens (int): Every output token; `reasoning_tokens` is a part of it.
        reasoning_tokens (int): Output the models spent thinking.
        refused_turns (int): Turns a quota refused (429 `quota_exceeded`); they made no call.
        email (str | Unset): The user's email (`group_by=user`).
        latency_p50_ms (int | Unset): Median duration of a call, in ms.
        latency_p95_ms (int | Unset): 95th percentile of the duration of a call, in ms.
        name (str | Unset): The user's, tool's or group's name beside its id in `key`; absent for days and
            models, and when the user, tool or group was deleted.
        ttft_p50_ms (int | Unset): Median time to the first token, in ms; absent when no call reported one.
            Percentiles are read from histograms (buckets about 1.5× apart, from 50 ms to
            60 s): the bound of the bucket holding the rank, never above the largest value.
        ttft_p95_ms (int | Unset): 95th percentile of the time to the first token, in ms.
    """

    cache_write_tokens: int
    cached_input_tokens: int
    calls: int
    cost_usd: float
    currency: str
    input_tokens: int
    key: str
    output_tokens: int
    reasoning_tokens: int
    refused_turns: int
    email: str | Unset = UNSET
    latency_p50_ms: int | Unset = UNSET
    latency_p95_ms: int | Unset = UNSET
    name: str | Unset = UNSET
    ttft_p50_ms: int | Unset = UNSET
    ttft_p95_ms: int | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_write_tokens = self.cache_write_tokens

        cached_input_tokens = self.cached_input_tokens

        calls = self.calls

        cost_usd = self.cost_usd

        currency = self.currency

        input_tokens = self.input_tokens

        key = self.key

        output_tokens = self.output_tokens

        reasoning_tokens = self.reasoning_tokens

        refused_turns = self.refused_turns

        email = self.email

        latency_p50_ms = self.latency_p50_ms

        latency_p95_ms = self.latency_p95_ms

        name = self.name

        ttft_p50_ms = self.ttft_p50_ms

        ttft_p95_ms = self.ttft_p95_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_write_tokens": cache_write_tokens,
                "cached_input_tokens": cached_input_tokens,
                "calls": calls,
                "cost_usd": cost_usd,
                "currency": currency,
                "input_tokens": input_tokens,
                "key": key,
                "output_tokens": output_tokens,
                "reasoning_tokens": reasoning_tokens,
                "refused_turns": refused_turns,
            }
        )
        if email is not UNSET:
            field_dict["email"] = email
        if latency_p50_ms is not UNSET:
            field_dict["latency_p50_ms"] = latency_p50_ms
        if latency_p95_ms is not UNSET:
            field_dict["latency_p95_ms"] = latency_p95_ms
        if name is not UNSET:
            field_dict["name"] = name
        if ttft_p50_ms is not UNSET:
            field_dict["ttft_p50_ms"] = ttft_p50_ms
        if ttft_p95_ms is not UNSET:
            field_dict["ttft_p95_ms"] = ttft_p95_ms

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_write_tokens = d.pop("cache_write_tokens")

        cached_input_tokens = d.pop("cached_input_tokens")

        calls = d.pop("calls")

        cost_usd = d.pop("cost_usd")

        currency = d.pop("currency")

        input_tokens = d.pop("input_tokens")

        key = d.pop("key")

        output_tokens = d.pop("output_tokens")

        reasoning_tokens = d.pop("reasoning_tokens")

        refused_turns = d.pop("refused_turns")

        email = d.pop("email", UNSET)

        latency_p50_ms = d.pop("latency_p50_ms", UNSET)

        latency_p95_ms = d.pop("latency_p95_ms", UNSET)

        name = d.pop("name", UNSET)

        ttft_p50_ms = d.pop("ttft_p50_ms", UNSET)

        ttft_p95_ms = d.pop("ttft_p95_ms", UNSET)

        usage_group = cls(
            cache_write_tokens=cache_write_tokens,
            cached_input_tokens=cached_input_tokens,
            calls=calls,
            cost_usd=cost_usd,
            currency=currency,
            input_tokens=input_tokens,
            key=key,
            output_tokens=output_tokens,
            reasoning_tokens=reasoning_tokens,
            refused_turns=refused_turns,
            email=email,
            latency_p50_ms=latency_p50_ms,
            latency_p95_ms=latency_p95_ms,
            name=name,
            ttft_p50_ms=ttft_p50_ms,
            ttft_p95_ms=ttft_p95_ms,
        )

        usage_group.additional_properties = d
        return usage_group

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
