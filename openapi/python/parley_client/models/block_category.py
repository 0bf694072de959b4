from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="BlockCategory")


@_attrs_define
class BlockCategory:
    """Blocks and modifications that gave one category.

    Attributes:
        blocks (int):
        category (str): The category the module gave with its reason, or `uncategorized`.
        modifications (int):
    """

    blocks: int
    category: str
    modifications: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blocks = self.blocks

        category = self.category

        modifications = self.modifications

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocks": blocks,
                "category": category,
                "modifications": modifications,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        blocks = d.pop("blocks")

        category = d.pop("category")

        modifications = d.pop("modifications")

        block_category = cls(
            blocks=blocks,
            category=category,
            modifications=modifications,
        )

        block_category.additional_properties = d
        return block_category

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
