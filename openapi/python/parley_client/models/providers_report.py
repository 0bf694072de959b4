from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.provider_status import ProviderStatus


T = TypeVar("T", bound="ProvidersReport")


@_attrs_define
class ProvidersReport:
    """The deployment's model providers.

    Attributes:
        providers (list[ProviderStatus]): Every configured provider, in configuration order (none: the offline demo
            model
            answers).
        window_s (int): The window of `calls`, `failed_calls` and `error_rate`, in seconds, up to now.
    """

    providers: list[ProviderStatus]
    window_s: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        providers = []
        for providers_item_data in self.providers:
            providers_item = providers_item_data.to_dict()
            providers.append(providers_item)

        window_s = self.window_s

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "providers": providers,
                "window_s": window_s,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.provider_status import ProviderStatus

        d = dict(src_dict)
        providers = []
        _providers = d.pop("providers")
        for providers_item_data in _providers:
            providers_item = ProviderStatus.from_dict(providers_item_data)

            providers.append(providers_item)

        window_s = d.pop("window_s")

        providers_report = cls(
            providers=providers,
            window_s=window_s,
        )

        providers_report.additional_properties = d
        return providers_report

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
