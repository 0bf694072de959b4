from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_completion_delta import ChatCompletionDelta


T = TypeVar("T", bound="ChatCompletionChunkChoice")


@_attrs_define
class ChatCompletionChunkChoice:
    """A choice of a chunk.

    Attributes:
        delta (ChatCompletionDelta): What one chunk adds to the message.
        index (int):
        finish_reason (None | str | Unset): Set on the last content chunk only.
    """

    delta: ChatCompletionDelta
    index: int
    finish_reason: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        delta = self.delta.to_dict()

        index = self.index

        finish_reason: None | str | Unset
        if isinstance(self.finish_reason, Unset):
            finish_reason = UNSET
        else:
            finish_reason = self.finish_reason

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "delta": delta,
                "index": index,
            }
        )
        if finish_reason is not UNSET:
            field_dict["finish_reason"] = finish_reason

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_completion_delta import ChatCompletionDelta

        d = dict(src_dict)
        delta = ChatCompletionDelta.from_dict(d.pop("delta"))

        index = d.pop("index")

        def _parse_finish_reason(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        finish_reason = _parse_finish_reason(d.pop("finish_reason", UNSET))

        chat_completion_chunk_choice = cls(
            delta=delta,
            index=index,
            finish_reason=finish_reason,
        )

        chat_completion_chunk_choice.additional_properties = d
        return chat_completion_chunk_choice

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
