from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.block_type import BlockType

T = TypeVar("T", bound="Block")


@_attrs_define
class Block:
    """A content block of an answer.

    Attributes:
        content (str):
        index (int):
        is_finalized (bool):
        type_ (BlockType): The kind of a content block.
    """

    content: str
    index: int
    is_finalized: bool
    type_: BlockType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content = self.content

        index = self.index

        is_finalized = self.is_finalized

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content": content,
                "index": index,
                "is_finalized": is_finalized,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content = d.pop("content")

        index = d.pop("index")

        is_finalized = d.pop("is_finalized")

        type_ = BlockType(d.pop("type"))

        block = cls(
            content=content,
            index=index,
            is_finalized=is_finalized,
            type_=type_,
        )

        block.additional_properties = d
        return block

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
