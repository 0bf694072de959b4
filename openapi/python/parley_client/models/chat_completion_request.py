from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_message_input import ChatMessageInput
    from ..models.chat_response_format import ChatResponseFormat
    from ..models.chat_stream_options import ChatStreamOptions
    from ..models.chat_tool import ChatTool


T = TypeVar("T", bound="ChatCompletionRequest")


@_attrs_define
class ChatCompletionRequest:
    """`POST /openai/v1/chat/completions`.

    Attributes:
        messages (list[ChatMessageInput]): The conversation; the last one is the user's message this turn answers.
        model (str): A chat tool (`tool:<id>`) or a model id (`GET /openai/v1/models`).
        audio (Any | Unset): Audio output: not available (400 `unsupported_parameter`).
        frequency_penalty (float | None | Unset): −2–2, within the tool's bounds (as `temperature`).
        logit_bias (Any | Unset): Token biases: not available (a non-empty map is 400 `unsupported_parameter`).
        logprobs (bool | None | Unset): Token log probabilities: not available (`true` is 400 `unsupported_parameter`).
        max_completion_tokens (int | None | Unset): The most tokens the answer may have (below the model's and the
            tool's limits;
            the answer stops there with `finish_reason: "length"`).
        max_tokens (int | None | Unset): The older name of `max_completion_tokens` (the smaller counts when both are
            given).
        modalities (list[str] | None | Unset): Only `["text"]` (anything else is 400 `unsupported_parameter`).
        n (int | None | Unset): Choices to generate: only 1 (more is 400 `unsupported_parameter`).
        parallel_tool_calls (bool | None | Unset): `true` (the default); `false`: at most one call per answer.
        prediction (Any | Unset): Predicted outputs: not available (400 `unsupported_parameter`).
        presence_penalty (float | None | Unset): −2–2, within the tool's bounds (as `temperature`).
        response_format (ChatResponseFormat | None | Unset): What the answer must be: text, a JSON object, or a value of
            a JSON schema.
        seed (int | None | Unset): Asks the provider for repeatable sampling (where it offers it).
        stop (list[str] | None | str | Unset): Up to four sequences where the answer stops (they are not shown).
        stream (bool | None | Unset): Stream `chat.completion.chunk` events (Server-Sent Events).
        stream_options (ChatStreamOptions | None | Unset):
        temperature (float | None | Unset): 0–2. A tool may fix it or bound it: outside its bounds the value is clamped
            or
            refused 400 `invalid_parameter`, as the tool says.
        tool_choice (Any | Unset): `auto` (the default), `none` (the caller's functions are not offered),
            `required` (the model's first answer calls a function: the caller's or the chat
            tool's) or `{"type": "function", "function": {"name": …}}` (it calls that one of
            `tools`; another name is 400 `invalid_parameter`). A forced choice holds for the
            turn's first answer only: after its calls the model may answer.
        tools (list[ChatTool] | None | Unset): Functions the caller runs itself. The model's calls of them end the
            completion
            with `tool_calls` (`finish_reason: tool_calls`); the next request, whose messages
            end with a `tool` message per call, continues the same turn. The chat tool's own
            functions still run on the server.
        top_logprobs (int | None | Unset): Not available (above 0 is 400 `unsupported_parameter`).
        top_p (float | None | Unset): 0–1, within the tool's bounds (as `temperature`).
    """

    messages: list[ChatMessageInput]
    model: str
    audio: Any | Unset = UNSET
    frequency_penalty: float | None | Unset = UNSET
    logit_bias: Any | Unset = UNSET
    logprobs: bool | None | Unset = UNSET
    max_completion_tokens: int | None | Unset = UNSET
    max_tokens: int | None | Unset = UNSET
    modalities: list[str] | None | Unset = UNSET
    n: int | None | Unset = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    prediction: Any | Unset = UNSET
    presence_penalty: float | None | Unset = UNSET
    response_format: ChatResponseFormat | None | Unset = UNSET
    seed: int | None | Unset = UNSET
    stop: list[str] | None | str | Unset = UNSET
    stream: bool | None | Unset = UNSET
    stream_options: ChatStreamOptions | None | Unset = UNSET
    temperature: float | None | Unset = UNSET
    tool_choice: Any | Unset = UNSET
    tools: list[ChatTool] | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_response_format import ChatResponseFormat
        from ..models.chat_stream_options import ChatStreamOptions

        messages = []
        for messages_item_data in self.messages:
            messages_item = messages_item_data.to_dict()
            messages.append(messages_item)

        model = self.model

        audio = self.audio

        frequency_penalty: float | None | Unset
        if isinstance(self.frequency_penalty, Unset):
            frequency_penalty = UNSET
        else:
            frequency_penalty = self.frequency_penalty

        logit_bias = self.logit_bias

        logprobs: bool | None | Unset
        if isinstance(self.logprobs, Unset):
            logprobs = UNSET
        else:
            logprobs = self.logprobs

        max_completion_tokens: int | None | Unset
        if isinstance(self.max_completion_tokens, Unset):
            max_completion_tokens = UNSET
        else:
            max_completion_tokens = self.max_completion_tokens

        max_tokens: int | None | Unset
        if isinstance(self.max_tokens, Unset):
            max_tokens = UNSET
        else:
            max_tokens = self.max_tokens

        modalities: list[str] | None | Unset
        if isinstance(self.modalities, Unset):
            modalities = UNSET
        elif isinstance(self.modalities, list):
            modalities = self.modalities

        else:
            modalities = self.modalities

        n: int | None | Unset
        if isinstance(self.n, Unset):
            n = UNSET
        else:
            n = self.n

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        prediction = self.prediction

        presence_penalty: float | None | Unset
        if isinstance(self.presence_penalty, Unset):
            presence_penalty = UNSET
        else:
            presence_penalty = self.presence_penalty

        response_format: dict[str, Any] | None | Unset
        if isinstance(self.response_format, Unset):
            response_format = UNSET
        elif isinstance(self.response_format, ChatResponseFormat):
            response_format = self.response_format.to_dict()
        else:
            response_format = self.response_format

        seed: int | None | Unset
        if isinstance(self.seed, Unset):
            seed = UNSET
        else:
            seed = self.seed

        stop: list[str] | None | str | Unset
        if isinstance(self.stop, Unset):
            stop = UNSET
        elif isinstance(self.stop, list):
            stop = self.stop

        else:
            stop = self.stop

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

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        tool_choice = self.tool_choice

        tools: list[dict[str, Any]] | None | Unset
        if isinstance(self.tools, Unset):
            tools = UNSET
        elif isinstance(self.tools, list):
            tools = []
            for tools_type_0_item_data in self.tools:
                tools_type_0_item = tools_type_0_item_data.to_dict()
                tools.append(tools_type_0_item)

        else:
            tools = self.tools

        top_logprobs: int | None | Unset
        if isinstance(self.top_logprobs, Unset):
            top_logprobs = UNSET
        else:
            top_logprobs = self.top_logprobs

        top_p: float | None | Unset
        if isinstance(self.top_p, Unset):
            top_p = UNSET
        else:
            top_p = self.top_p

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "messages": messages,
                "model": model,
            }
        )
        if audio is not UNSET:
            field_dict["audio"] = audio
        if frequency_penalty is not UNSET:
            field_dict["frequency_penalty"] = frequency_penalty
        if logit_bias is not UNSET:
            field_dict["logit_bias"] = logit_bias
        if logprobs is not UNSET:
            field_dict["logprobs"] = logprobs
        if max_completion_tokens is not UNSET:
            field_dict["max_completion_tokens"] = max_completion_tokens
        if max_tokens is not UNSET:
            field_dict["max_tokens"] = max_tokens
        if modalities is not UNSET:
            field_dict["modalities"] = modalities
        if n is not UNSET:
            field_dict["n"] = n
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if prediction is not UNSET:
            field_dict["prediction"] = prediction
        if presence_penalty is not UNSET:
            field_dict["presence_penalty"] = presence_penalty
        if response_format is not UNSET:
            field_dict["response_format"] = response_format
        if seed is not UNSET:
            field_dict["seed"] = seed
        if stop is not UNSET:
            field_dict["stop"] = stop
        if stream is not UNSET:
            field_dict["stream"] = stream
        if stream_options is not UNSET:
            field_dict["stream_options"] = stream_options
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if tool_choice is not UNSET:
            field_dict["tool_choice"] = tool_choice
        if tools is not UNSET:
            field_dict["tools"] = tools
        if top_logprobs is not UNSET:
            field_dict["top_logprobs"] = top_logprobs
        if top_p is not UNSET:
            field_dict["top_p"] = top_p

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_message_input import ChatMessageInput
        from ..models.chat_response_format import ChatResponseFormat
        from ..models.chat_stream_options import ChatStreamOptions
        from ..models.chat_tool import ChatTool

        d = dict(src_dict)
        messages = []
        _messages = d.pop("messages")
        for messages_item_data in _messages:
            messages_item = ChatMessageInput.from_dict(messages_item_data)

            messages.append(messages_item)

        model = d.pop("model")

        audio = d.pop("audio", UNSET)

        def _parse_frequency_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        frequency_penalty = _parse_frequency_penalty(d.pop("frequency_penalty", UNSET))

        logit_bias = d.pop("logit_bias", UNSET)

        def _parse_logprobs(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        logprobs = _parse_logprobs(d.pop("logprobs", UNSET))

        def _parse_max_completion_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_completion_tokens = _parse_max_completion_tokens(
            d.pop("max_completion_tokens", UNSET)
        )

        def _parse_max_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tokens = _parse_max_tokens(d.pop("max_tokens", UNSET))

        def _parse_modalities(data: object) -> list[str] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                modalities_type_0 = cast(list[str], data)

                return modalities_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | Unset, data)

        modalities = _parse_modalities(d.pop("modalities", UNSET))

        def _parse_n(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        n = _parse_n(d.pop("n", UNSET))

        def _parse_parallel_tool_calls(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        parallel_tool_calls = _parse_parallel_tool_calls(
            d.pop("parallel_tool_calls", UNSET)
        )

        prediction = d.pop("prediction", UNSET)

        def _parse_presence_penalty(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        presence_penalty = _parse_presence_penalty(d.pop("presence_penalty", UNSET))

        def _parse_response_format(data: object) -> ChatResponseFormat | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_format_type_1 = ChatResponseFormat.from_dict(data)

                return response_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatResponseFormat | None | Unset, data)

        response_format = _parse_response_format(d.pop("response_format", UNSET))

        def _parse_seed(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        seed = _parse_seed(d.pop("seed", UNSET))

        def _parse_stop(data: object) -> list[str] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_chat_stop_type_1 = cast(list[str], data)

                return componentsschemas_chat_stop_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[str] | None | str | Unset, data)

        stop = _parse_stop(d.pop("stop", UNSET))

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

        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        tool_choice = d.pop("tool_choice", UNSET)

        def _parse_tools(data: object) -> list[ChatTool] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                tools_type_0 = []
                _tools_type_0 = data
                for tools_type_0_item_data in _tools_type_0:
                    tools_type_0_item = ChatTool.from_dict(tools_type_0_item_data)

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ChatTool] | None | Unset, data)

        tools = _parse_tools(d.pop("tools", UNSET))

        def _parse_top_logprobs(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        top_logprobs = _parse_top_logprobs(d.pop("top_logprobs", UNSET))

        def _parse_top_p(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        top_p = _parse_top_p(d.pop("top_p", UNSET))

        chat_completion_request = cls(
            messages=messages,
            model=model,
            audio=audio,
            frequency_penalty=frequency_penalty,
            logit_bias=logit_bias,
            logprobs=logprobs,
            max_completion_tokens=max_completion_tokens,
            max_tokens=max_tokens,
            modalities=modalities,
            n=n,
            parallel_tool_calls=parallel_tool_calls,
            prediction=prediction,
            presence_penalty=presence_penalty,
            response_format=response_format,
            seed=seed,
            stop=stop,
            stream=stream,
            stream_options=stream_options,
            temperature=temperature,
            tool_choice=tool_choice,
            tools=tools,
            top_logprobs=top_logprobs,
            top_p=top_p,
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
