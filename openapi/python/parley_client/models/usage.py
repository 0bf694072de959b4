from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="Usage")


@_attrs_define
class Usage:
    """Token counts of a turn, summed over its LLM calls, by kind. `input_tokens` and
    `output_tokens` count every token; `cached_input_tokens` and `cache_write_tokens` are
    the parts of the input read from and written to the provider's prompt cache,
    `reasoning_tokens` the part of the output the model spent thinking (0 when the
    provider did not report them).

        Attributes:
            cache_write_tokens (int):
            cached_input_tokens (int):
            input_tokens (int):
            output_tokens (int):
            reasoning_tokens (int):
    """

    cache_write_tokens: int
    cached_input_tokens: int
    input_tokens: int
    output_tokens: int
    reasoning_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        cache_write_tokens = self.cache_write_tokens

        cached_input_tokens = self.cached_input_tokens

        input_tokens = self.input_tokens

        output_tokens = self.output_tokens

        reasoning_tokens = self.reasoning_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "cache_write_tokens": cache_write_tokens,
                "cached_input_tokens": cached_input_tokens,
                "input_tokens": input_tokens,
                "output_tokens": output_tokens,
                "reasoning_tokens": reasoning_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        cache_write_tokens = d.pop("cache_write_tokens")

        cached_input_tokens = d.pop("cached_input_tokens")

        input_tokens = d.pop("input_tokens")

        output_tokens = d.pop("output_tokens")

        reasoning_tokens = d.pop("reasoning_tokens")

        usage = cls(
            cache_write_tokens=cache_write_tokens,
            cached_input_tokens=cached_input_tokens,
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            reasoning_tokens=reasoning_tokens,
        )

        usage.additional_properties = d
        return usage

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
