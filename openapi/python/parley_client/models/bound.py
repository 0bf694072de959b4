from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="Bound")


@_attrs_define
class Bound:
    """A tool's bounds on one sampling value: fixed, or within a range.

    Attributes:
        fixed (float | None | Unset): The value every call uses, whatever the request asks.
        max_ (float | None | Unset): The most a request may ask.
        min_ (float | None | Unset): The least a request may ask.
    """

    fixed: float | None | Unset = UNSET
    max_: float | None | Unset = UNSET
    min_: float | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        fixed: float | None | Unset
        if isinstance(self.fixed, Unset):
            fixed = UNSET
        else:
            fixed = self.fixed

        max_: float | None | Unset
        if isinstance(self.max_, Unset):
            max_ = UNSET
        else:
            max_ = self.max_

        min_: float | None | Unset
        if isinstance(self.min_, Unset):
            min_ = UNSET
        else:
            min_ = self.min_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if fixed is not UNSET:
            field_dict["fixed"] = fixed
        if max_ is not UNSET:
            field_dict["max"] = max_
        if min_ is not UNSET:
            field_dict["min"] = min_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_fixed(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        fixed = _parse_fixed(d.pop("fixed", UNSET))

        def _parse_max_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        max_ = _parse_max_(d.pop("max", UNSET))

        def _parse_min_(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        min_ = _parse_min_(d.pop("min", UNSET))

        bound = cls(
            fixed=fixed,
            max_=max_,
            min_=min_,
        )

        return bound
