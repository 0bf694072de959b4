from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.block_category import BlockCategory


T = TypeVar("T", bound="BlockGroup")


@_attrs_define
class BlockGroup:
    """What modules did in one group: a module or a day.

    Attributes:
        block_rate (float): `blocks / runs`.
        blocks (int):
        by_category (list[BlockCategory]): Blocks and modifications by category, by category name.
        error_rate (float): `errors / runs`.
        errors (int):
        key (str): The module's name or the day (`YYYY-MM-DD`, UTC), as `group_by` asked.
        modifications (int):
        modify_rate (float): `modifications / runs`.
        p95_duration_ms (int): 95th percentile of the hook runs' durations, in ms, read from a histogram
            (buckets from 1 ms to 5 s): the bound of the bucket holding the rank, never above
            the longest run.
        runs (int): Recorded hook runs.
        timeout_rate (float): `timeouts / runs`.
        timeouts (int):
    """

    block_rate: float
    blocks: int
    by_category: list[BlockCategory]
    error_rate: float
    errors: int
    key: str
    modifications: int
    modify_rate: float
    p95_duration_ms: int
    runs: int
    timeout_rate: float
    timeouts: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        block_rate = self.block_rate

        blocks = self.blocks

        by_category = []
        for by_category_item_data in self.by_category:
            by_category_item = by_category_item_data.to_dict()
            by_category.append(by_category_item)

        error_rate = self.error_rate

        errors = self.errors

        key = self.key

        modifications = self.modifications

        modify_rate = self.modify_rate

        p95_duration_ms = self.p95_duration_ms

        runs = self.runs

        timeout_rate = self.timeout_rate

        timeouts = self.timeouts

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "block_rate": block_rate,
                "blocks": blocks,
                "by_category": by_category,
                "error_rate": error_rate,
                "errors": errors,
                "key": key,
                "modifications": modifications,
                "modify_rate": modify_rate,
                "p95_duration_ms": p95_duration_ms,
                "runs": runs,
                "timeout_rate": timeout_rate,
                "timeouts": timeouts,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.block_category import BlockCategory

        d = dict(src_dict)
        block_rate = d.pop("block_rate")

        blocks = d.pop("blocks")

        by_category = []
        _by_category = d.pop("by_category")
        for by_category_item_data in _by_category:
            by_category_item = BlockCategory.from_dict(by_category_item_data)

            by_category.append(by_category_item)

        error_rate = d.pop("error_rate")

        errors = d.pop("errors")

        key = d.pop("key")

        modifications = d.pop("modifications")

        modify_rate = d.pop("modify_rate")

        p95_duration_ms = d.pop("p95_duration_ms")

        runs = d.pop("runs")

        timeout_rate = d.pop("timeout_rate")

        timeouts = d.pop("timeouts")

        block_group = cls(
            block_rate=block_rate,
            blocks=blocks,
            by_category=by_category,
            error_rate=error_rate,
            errors=errors,
            key=key,
            modifications=modifications,
            modify_rate=modify_rate,
            p95_duration_ms=p95_duration_ms,
            runs=runs,
            timeout_rate=timeout_rate,
            timeouts=timeouts,
        )

        block_group.additional_properties = d
        return block_group

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
