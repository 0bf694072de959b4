from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.block_category import BlockCategory
    from ..models.block_group import BlockGroup


T = TypeVar("T", bound="BlockReport")


@_attrs_define
class BlockReport:
    """Block metrics of a window.

    Attributes:
        by_category (list[BlockCategory]): Blocks and modifications of the whole window by category, by category name.
        groups (list[BlockGroup]): Every module (or day) with recorded runs in the window, by key.
    """

    by_category: list[BlockCategory]
    groups: list[BlockGroup]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_category = []
        for by_category_item_data in self.by_category:
            by_category_item = by_category_item_data.to_dict()
            by_category.append(by_category_item)

        groups = []
        for groups_item_data in self.groups:
            groups_item = groups_item_data.to_dict()
            groups.append(groups_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_category": by_category,
                "groups": groups,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.block_category import BlockCategory
        from ..models.block_group import BlockGroup

        d = dict(src_dict)
        by_category = []
        _by_category = d.pop("by_category")
        for by_category_item_data in _by_category:
            by_category_item = BlockCategory.from_dict(by_category_item_data)

            by_category.append(by_category_item)

        groups = []
        _groups = d.pop("groups")
        for groups_item_data in _groups:
            groups_item = BlockGroup.from_dict(groups_item_data)

            groups.append(groups_item)

        block_report = cls(
            by_category=by_category,
            groups=groups,
        )

        block_report.additional_properties = d
        return block_report

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
