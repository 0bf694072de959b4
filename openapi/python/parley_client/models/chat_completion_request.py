from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_message_input import ChatMessageInput
    from ..models.chat_stream_options import ChatStreamOptions


T = TypeVar("T", bound="ChatCompletionRequest")


@_attrs_define
class ChatCompletionRequest:
    """`POST /openai/v1/chat/completions`.

    Attributes:
        messages (list[ChatMessageInput]): The conversation; the last one is the user's message this turn answers.
        model (str): A chat tool (`tool:<id>`) or a model id (`GET /openai/v1/models`).
        stream (bool | None | Unset): Stream `chat.completion.chunk` events (Server-Sent Events).
        stream_options (ChatStreamOptions | None | Unset):
    """

    messages: list[ChatMessageInput]
    model: str
    stream: bool | None | Unset = UNSET
    stream_options: ChatStreamOptions | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_stream_options import ChatStreamOptions

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        model = self.model

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        stream_options: dict[str, Any] | None | Unset
        if isinstance(self.stream_options, Unset):
            stream_options = UNSET
        elif isinstance(self.stream_options, ChatStreamOptions):
            stream_options = self.stream_options.to_dict()
        else:
            stream_options = self.stream_options

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
                "model": model,
            }
        )
        if stream is not UNSET:
            field_dict["stream"] = stream
        if stream_options is not UNSET:
            field_dict["stream_options"] = stream_options

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_message_input import ChatMessageInput
        from ..models.chat_stream_options import ChatStreamOptions

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ChatMessageInput.from_dict(messages_item_data)

            messages.append(messages_item)

        model = d.pop("model")

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_stream_options(data: object) -> ChatStreamOptions | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                stream_options_type_1 = ChatStreamOptions.from_dict(data)

                return stream_options_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatStreamOptions | None | Unset, data)

        stream_options = _parse_stream_options(d.pop("stream_options", UNSET))

        chat_completion_request = cls(
            messages=messages,
            model=model,
            stream=stream,
            stream_options=stream_options,
        )

        chat_completion_request.additional_properties = d
        return chat_completion_request

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
