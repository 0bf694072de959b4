from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="UpdateBudget")


@_attrs_define
class UpdateBudget:
    """A budget's new limit.

    Attributes:
        limit (float): The limit in the currency (US dollars), to the micro-unit.
    """

    limit: float

    def to_dict(self) -> dict[str, Any]:
        limit = self.limit

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "limit": limit,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        limit = d.pop("limit")

        update_budget = cls(
            limit=limit,
        )

        return update_budget
