from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.block import Block
    from ..models.prompt import Prompt


T = TypeVar("T", bound="StreamingState")


@_attrs_define
class StreamingState:
    """The session's active generation and its partial content.

    Attributes:
        blocks (list[Block]): Its content blocks so far (checkpointed at most every 100 ms).
        prompt (Prompt | Unset): One generation of a session.
    """

    blocks: list[Block]
    prompt: Prompt | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        blocks = []
        for blocks_item_data in self.blocks:
            blocks_item = blocks_item_data.to_dict()
            blocks.append(blocks_item)

        prompt: dict[str, Any] | Unset = UNSET
        if not isinstance(self.prompt, Unset):
            prompt = self.prompt.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "blocks": blocks,
            }
        )
        if prompt is not UNSET:
            field_dict["prompt"] = prompt

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.block import Block
        from ..models.prompt import Prompt

        d = dict(src_dict)
        blocks = []
        _blocks = d.pop("blocks")
        for blocks_item_data in _blocks:
            blocks_item = Block.from_dict(blocks_item_data)

            blocks.append(blocks_item)

        _prompt = d.pop("prompt", UNSET)
        prompt: Prompt | Unset
        if isinstance(_prompt, Unset):
            prompt = UNSET
        else:
            prompt = Prompt.from_dict(_prompt)

        streaming_state = cls(
            blocks=blocks,
            prompt=prompt,
        )

        streaming_state.additional_properties = d
        return streaming_state

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
