from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_completion_message import ChatCompletionMessage


T = TypeVar("T", bound="ChatCompletionChoice")


@_attrs_define
class ChatCompletionChoice:
    """One choice (there is always exactly one).

    Attributes:
        finish_reason (str): `stop`, `length`, `tool_calls` (the model called the caller's functions), or
            `content_filter` when a module blocked the message or the answer.
        index (int):
        message (ChatCompletionMessage): The assistant's message of a completion.
        logprobs (Any | Unset): Always null.
    """

    finish_reason: str
    index: int
    message: ChatCompletionMessage
    logprobs: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        finish_reason = self.finish_reason

        index = self.index

        message = self.message.to_dict()

        logprobs = self.logprobs

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "finish_reason": finish_reason,
                "index": index,
                "message": message,
            }
        )
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_completion_message import ChatCompletionMessage

        d = dict(src_dict)
        finish_reason = d.pop("finish_reason")

        index = d.pop("index")

        message = ChatCompletionMessage.from_dict(d.pop("message"))

        logprobs = d.pop("logprobs", UNSET)

        chat_completion_choice = cls(
            finish_reason=finish_reason,
            index=index,
            message=message,
            logprobs=logprobs,
        )

        chat_completion_choice.additional_properties = d
        return chat_completion_choice

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
