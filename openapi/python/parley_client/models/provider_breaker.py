from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.breaker_state_name import BreakerStateName
from ..types import UNSET, Unset

T = TypeVar("T", bound="ProviderBreaker")


@_attrs_define
class ProviderBreaker:
    """A provider's circuit breaker.

    Attributes:
        state (BreakerStateName): The state of a provider's circuit breaker.
        consecutive_failures (int | Unset): Consecutive failed calls so far (`closed` only).
        open_until (datetime.datetime | Unset): When an `open` breaker lets a probe through.
    """

    state: BreakerStateName
    consecutive_failures: int | Unset = UNSET
    open_until: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        state = self.state.value

        consecutive_failures = self.consecutive_failures

        open_until: str | Unset = UNSET
        if not isinstance(self.open_until, Unset):
            open_until = self.open_until.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "state": state,
            }
        )
        if consecutive_failures is not UNSET:
            field_dict["consecutive_failures"] = consecutive_failures
        if open_until is not UNSET:
            field_dict["open_until"] = open_until

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        state = BreakerStateName(d.pop("state"))

        consecutive_failures = d.pop("consecutive_failures", UNSET)

        _open_until = d.pop("open_until", UNSET)
        open_until: datetime.datetime | Unset
        if isinstance(_open_until, Unset):
            open_until = UNSET
        else:
            open_until = datetime.datetime.fromisoformat(_open_until)

        provider_breaker = cls(
            state=state,
            consecutive_failures=consecutive_failures,
            open_until=open_until,
        )

        provider_breaker.additional_properties = d
        return provider_breaker

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
