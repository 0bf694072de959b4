from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.call_error import CallError

T = TypeVar("T", bound="ProviderFailure")


@_attrs_define
class ProviderFailure:
    """A provider's latest failed call.

    Attributes:
        at (datetime.datetime):
        category (CallError): How one provider call failed (`ai_usage.error`; absent: it did not fail), for the
            providers' error rates and last errors (`GET /v1/admin/providers`).
    """

    at: datetime.datetime
    category: CallError
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        at = self.at.isoformat()

        category = self.category.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "at": at,
                "category": category,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        at = datetime.datetime.fromisoformat(d.pop("at"))

        category = CallError(d.pop("category"))

        provider_failure = cls(
            at=at,
            category=category,
        )

        provider_failure.additional_properties = d
        return provider_failure

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
