from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_function_tool import ResponseFunctionTool
    from ..models.response_input_item import ResponseInputItem
    from ..models.response_text_param import ResponseTextParam


T = TypeVar("T", bound="ResponseCreateRequest")


@_attrs_define
class ResponseCreateRequest:
    """`POST /openai/v1/responses`.

    Attributes:
        input_ (list[ResponseInputItem] | str): A response's input: the user's message, or items.
        model (str): A chat tool (`tool:<id>`) or a model id (`GET /openai/v1/models`).
        background (bool | None | Unset): Answer at once (status `queued`) and run in the background; follow it with
            `GET /openai/v1/responses/{id}`.
        instructions (None | str | Unset): Added to the tool's system prompt for this turn.
        max_output_tokens (int | None | Unset): The most tokens the response may have (below the model's and the tool's
            limits; a response cut there is `incomplete`, reason `max_output_tokens`).
        parallel_tool_calls (bool | None | Unset): `true` (the default); `false`: at most one call per answer.
        previous_response_id (None | str | Unset): Continue the conversation of this response (`resp_…`).
        stream (bool | None | Unset): Stream the response's events (Server-Sent Events).
        temperature (float | None | Unset): 0–2. A tool may fix it or bound it: outside its bounds the value is clamped
            or
            refused 400 `invalid_parameter`, as the tool says.
        text (None | ResponseTextParam | Unset): The answer's text settings: its `format` (text, a JSON object, a JSON
            schema).
        tool_choice (Any | Unset): `auto` (the default), `none` (the caller's functions are not offered),
            `required` (the model's first answer calls a function: the caller's or the chat
            tool's) or `{"type": "function", "name": …}` (it calls that one of
            `tools`; another name is 400 `invalid_parameter`). A forced choice holds for the
            turn's first answer only: after its calls the model may answer.
        tools (list[ResponseFunctionTool] | None | Unset): Functions the caller runs itself. The model's calls of them
            are `function_call`
            output items and end the response (`completed`) while the turn waits; a request
            whose input ends with a `function_call_output` per call (with
            `previous_response_id`, or after the whole input) continues the same turn as a
            new response. The chat tool's own functions still run on the server.
        top_logprobs (int | None | Unset): Not available (above 0 is 400 `unsupported_parameter`).
        top_p (float | None | Unset): 0–1, within the tool's bounds (as `temperature`).
    """

    input_: list[ResponseInputItem] | str
    model: str
    background: bool | None | Unset = UNSET
    instructions: None | str | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    parallel_tool_calls: bool | None | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    stream: bool | None | Unset = UNSET
    temperature: float | None | Unset = UNSET
    text: None | ResponseTextParam | Unset = UNSET
    tool_choice: Any | Unset = UNSET
    tools: list[ResponseFunctionTool] | None | Unset = UNSET
    top_logprobs: int | None | Unset = UNSET
    top_p: float | None | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_param import ResponseTextParam

        input_: list[dict[str, Any]] | str
        if isinstance(self.input_, list):
            input_ = []
            for componentsschemas_response_input_type_1_item_data in self.input_:
                componentsschemas_response_input_type_1_item = (
                    componentsschemas_response_input_type_1_item_data.to_dict()
                )
                input_.append(componentsschemas_response_input_type_1_item)

        else:
            input_ = self.input_

        model = self.model

        background: bool | None | Unset
        if isinstance(self.background, Unset):
            background = UNSET
        else:
            background = self.background

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        max_output_tokens: int | None | Unset
        if isinstance(self.max_output_tokens, Unset):
            max_output_tokens = UNSET
        else:
            max_output_tokens = self.max_output_tokens

        parallel_tool_calls: bool | None | Unset
        if isinstance(self.parallel_tool_calls, Unset):
            parallel_tool_calls = UNSET
        else:
            parallel_tool_calls = self.parallel_tool_calls

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        temperature: float | None | Unset
        if isinstance(self.temperature, Unset):
            temperature = UNSET
        else:
            temperature = self.temperature

        text: dict[str, Any] | None | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        elif isinstance(self.text, ResponseTextParam):
            text = self.text.to_dict()
        else:
            text = self.text

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
                "input": input_,
                "model": model,
            }
        )
        if background is not UNSET:
            field_dict["background"] = background
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if parallel_tool_calls is not UNSET:
            field_dict["parallel_tool_calls"] = parallel_tool_calls
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if stream is not UNSET:
            field_dict["stream"] = stream
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if text is not UNSET:
            field_dict["text"] = text
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
        from ..models.response_function_tool import ResponseFunctionTool
        from ..models.response_input_item import ResponseInputItem
        from ..models.response_text_param import ResponseTextParam

        d = dict(src_dict)

        def _parse_input_(data: object) -> list[ResponseInputItem] | str:
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_response_input_type_1 = []
                _componentsschemas_response_input_type_1 = data
                for (
                    componentsschemas_response_input_type_1_item_data
                ) in _componentsschemas_response_input_type_1:
                    componentsschemas_response_input_type_1_item = (
                        ResponseInputItem.from_dict(
                            componentsschemas_response_input_type_1_item_data
                        )
                    )

                    componentsschemas_response_input_type_1.append(
                        componentsschemas_response_input_type_1_item
                    )

                return componentsschemas_response_input_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseInputItem] | str, data)

        input_ = _parse_input_(d.pop("input"))

        model = d.pop("model")

        def _parse_background(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        background = _parse_background(d.pop("background", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        def _parse_max_output_tokens(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_output_tokens = _parse_max_output_tokens(d.pop("max_output_tokens", UNSET))

        def _parse_parallel_tool_calls(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        parallel_tool_calls = _parse_parallel_tool_calls(
            d.pop("parallel_tool_calls", UNSET)
        )

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(
            d.pop("previous_response_id", UNSET)
        )

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_temperature(data: object) -> float | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(float | None | Unset, data)

        temperature = _parse_temperature(d.pop("temperature", UNSET))

        def _parse_text(data: object) -> None | ResponseTextParam | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                text_type_1 = ResponseTextParam.from_dict(data)

                return text_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseTextParam | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        tool_choice = d.pop("tool_choice", UNSET)

        def _parse_tools(data: object) -> list[ResponseFunctionTool] | None | Unset:
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
                    tools_type_0_item = ResponseFunctionTool.from_dict(
                        tools_type_0_item_data
                    )

                    tools_type_0.append(tools_type_0_item)

                return tools_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseFunctionTool] | None | Unset, data)

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

        response_create_request = cls(
            input_=input_,
            model=model,
            background=background,
            instructions=instructions,
            max_output_tokens=max_output_tokens,
            parallel_tool_calls=parallel_tool_calls,
            previous_response_id=previous_response_id,
            stream=stream,
            temperature=temperature,
            text=text,
            tool_choice=tool_choice,
            tools=tools,
            top_logprobs=top_logprobs,
            top_p=top_p,
        )

        response_create_request.additional_properties = d
        return response_create_request

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
