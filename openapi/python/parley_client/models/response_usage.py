from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.response_input_tokens_details import ResponseInputTokensDetails
    from ..models.response_output_tokens_details import ResponseOutputTokensDetails


T = TypeVar("T", bound="ResponseUsage")


@_attrs_define
class ResponseUsage:
    """Token counts of a response.

    Attributes:
        input_tokens (int):
        input_tokens_details (ResponseInputTokensDetails): Cached input tokens (always 0).
        output_tokens (int):
        output_tokens_details (ResponseOutputTokensDetails): Reasoning output tokens (always 0).
        total_tokens (int):
    """

    input_tokens: int
    input_tokens_details: ResponseInputTokensDetails
    output_tokens: int
    output_tokens_details: ResponseOutputTokensDetails
    total_tokens: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        input_tokens = self.input_tokens

        input_tokens_details = self.input_tokens_details.to_dict()

        output_tokens = self.output_tokens

        output_tokens_details = self.output_tokens_details.to_dict()

        total_tokens = self.total_tokens

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "input_tokens": input_tokens,
                "input_tokens_details": input_tokens_details,
                "output_tokens": output_tokens,
                "output_tokens_details": output_tokens_details,
                "total_tokens": total_tokens,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_input_tokens_details import ResponseInputTokensDetails
        from ..models.response_output_tokens_details import ResponseOutputTokensDetails

        d = dict(src_dict)
        input_tokens = d.pop("input_tokens")

        input_tokens_details = ResponseInputTokensDetails.from_dict(
            d.pop("input_tokens_details")
        )

        output_tokens = d.pop("output_tokens")

        output_tokens_details = ResponseOutputTokensDetails.from_dict(
            d.pop("output_tokens_details")
        )

        total_tokens = d.pop("total_tokens")

        response_usage = cls(
            input_tokens=input_tokens,
            input_tokens_details=input_tokens_details,
            output_tokens=output_tokens,
            output_tokens_details=output_tokens_details,
            total_tokens=total_tokens,
        )

        response_usage.additional_properties = d
        return response_usage

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
