from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.provider_breaker import ProviderBreaker
    from ..models.provider_failure import ProviderFailure


T = TypeVar("T", bound="ProviderStatus")


@_attrs_define
class ProviderStatus:
    """One model provider.

    Attributes:
        breaker (ProviderBreaker): A provider's circuit breaker.
        calls (int): Its calls in the window (a call its open breaker refused is no call).
        failed_calls (int): Those that failed.
        models (list[str]): The model ids (as clients ask for them) it serves.
        name (str): Its name in the configuration (the `vendor` of its usage).
        error_rate (float | Unset): `failed_calls / calls`; absent with no calls.
        last_error (ProviderFailure | Unset): A provider's latest failed call.
    """

    breaker: ProviderBreaker
    calls: int
    failed_calls: int
    models: list[str]
    name: str
    error_rate: float | Unset = UNSET
    last_error: ProviderFailure | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        breaker = self.breaker.to_dict()

        calls = self.calls

        failed_calls = self.failed_calls

        models = self.models

        name = self.name

        error_rate = self.error_rate

        last_error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.last_error, Unset):
            last_error = self.last_error.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "breaker": breaker,
                "calls": calls,
                "failed_calls": failed_calls,
                "models": models,
                "name": name,
            }
        )
        if error_rate is not UNSET:
            field_dict["error_rate"] = error_rate
        if last_error is not UNSET:
            field_dict["last_error"] = last_error

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.provider_breaker import ProviderBreaker
        from ..models.provider_failure import ProviderFailure

        d = dict(src_dict)
        breaker = ProviderBreaker.from_dict(d.pop("breaker"))

        calls = d.pop("calls")

        failed_calls = d.pop("failed_calls")

        models = cast(list[str], d.pop("models"))

        name = d.pop("name")

        error_rate = d.pop("error_rate", UNSET)

        _last_error = d.pop("last_error", UNSET)
        last_error: ProviderFailure | Unset
        if isinstance(_last_error, Unset):
            last_error = UNSET
        else:
            last_error = ProviderFailure.from_dict(_last_error)

        provider_status = cls(
            breaker=breaker,
            calls=calls,
            failed_calls=failed_calls,
            models=models,
            name=name,
            error_rate=error_rate,
            last_error=last_error,
        )

        provider_status.additional_properties = d
        return provider_status

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
