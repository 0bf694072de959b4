from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.open_ai_response_error import OpenAiResponseError
    from ..models.open_ai_response_metadata import OpenAiResponseMetadata
    from ..models.response_incomplete_details import ResponseIncompleteDetails
    from ..models.response_output_item_response_function_call import (
        ResponseOutputItemResponseFunctionCall,
    )
    from ..models.response_output_item_response_mcp_call import (
        ResponseOutputItemResponseMcpCall,
    )
    from ..models.response_output_item_response_output_message import (
        ResponseOutputItemResponseOutputMessage,
    )
    from ..models.response_reasoning import ResponseReasoning
    from ..models.response_text import ResponseText
    from ..models.response_usage import ResponseUsage


T = TypeVar("T", bound="OpenAiResponse")


@_attrs_define
class OpenAiResponse:
    """A response: one Parley prompt, in the Responses API's shape.

    Attributes:
        background (bool):
        created_at (int):
        frequency_penalty (float):
        id (str): `resp_<the Parley prompt's id>`.
        metadata (OpenAiResponseMetadata):
        model (str):
        object_ (str): Always `response`.
        output (list[ResponseOutputItemResponseFunctionCall | ResponseOutputItemResponseMcpCall |
            ResponseOutputItemResponseOutputMessage]):
        parallel_tool_calls (bool):
        presence_penalty (float):
        service_tier (str): Always `default`.
        status (str): `queued`, `in_progress`, `completed`, `failed`, `cancelled` or `incomplete`.
        store (bool): Always true: every response is kept (as a Parley prompt).
        temperature (float): The sampling the model ran with: its provider's defaults (1, 1, 0, 0), which
            Parley does not change.
        text (ResponseText): The response's text settings.
        tool_choice (Any): As the request asked: `auto` (the default), `none`, `required`, or the function
            it named (`{"type": "function", "name": …}`).
        tools (list[Any]): The caller's function tools offered to the model (none with `tool_choice: none`;
            Parley's own functions are the chat tool's, run by Parley, and not listed).
        top_logprobs (int): Always 0: Parley returns no log probabilities.
        top_p (float):
        truncation (str): Always `disabled`.
        completed_at (int | None | Unset):
        error (None | OpenAiResponseError | Unset):
        incomplete_details (None | ResponseIncompleteDetails | Unset):
        instructions (None | str | Unset):
        max_output_tokens (int | None | Unset): As the request asked (within the tool's bounds); null: the tool's.
        max_tool_calls (int | None | Unset): Always null: the tool's own limit on function rounds applies.
        previous_response_id (None | str | Unset):
        prompt_cache_key (None | str | Unset):
        reasoning (None | ResponseReasoning | Unset): Always null: the model's own reasoning settings apply.
        safety_identifier (None | str | Unset): Always null: a request's `safety_identifier` and `prompt_cache_key` are
            not
            kept (the caller is known by its token; Parley keys provider caches itself).
        usage (None | ResponseUsage | Unset):
        user (None | str | Unset):
    """

    background: bool
    created_at: int
    frequency_penalty: float
    id: str
    metadata: OpenAiResponseMetadata
    model: str
    object_: str
    output: list[
        ResponseOutputItemResponseFunctionCall
        | ResponseOutputItemResponseMcpCall
        | ResponseOutputItemResponseOutputMessage
    ]
    parallel_tool_calls: bool
    presence_penalty: float
    service_tier: str
    status: str
    store: bool
    temperature: float
    text: ResponseText
    tool_choice: Any
    tools: list[Any]
    top_logprobs: int
    top_p: float
    truncation: str
    completed_at: int | None | Unset = UNSET
    error: None | OpenAiResponseError | Unset = UNSET
    incomplete_details: None | ResponseIncompleteDetails | Unset = UNSET
    instructions: None | str | Unset = UNSET
    max_output_tokens: int | None | Unset = UNSET
    max_tool_calls: int | None | Unset = UNSET
    previous_response_id: None | str | Unset = UNSET
    prompt_cache_key: None | str | Unset = UNSET
    reasoning: None | ResponseReasoning | Unset = UNSET
    safety_identifier: None | str | Unset = UNSET
    usage: None | ResponseUsage | Unset = UNSET
    user: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.open_ai_response_error import OpenAiResponseError
        from ..models.response_incomplete_details import ResponseIncompleteDetails
        from ..models.response_output_item_response_mcp_call import (
            ResponseOutputItemResponseMcpCall,
        )
        from ..models.response_output_item_response_output_message import (
            ResponseOutputItemResponseOutputMessage,
        )
        from ..models.response_reasoning import ResponseReasoning
        from ..models.response_usage import ResponseUsage

        background = self.background

        created_at = self.created_at

        frequency_penalty = self.frequency_penalty

        id = self.id

        metadata = self.metadata.to_dict()

        model = self.model

        object_ = self.object_

        output = []
        for output_item_data in self.output:
            output_item: dict[str, Any]
            if isinstance(
                output_item_data, ResponseOutputItemResponseOutputMessage
            ) or isinstance(output_item_data, ResponseOutputItemResponseMcpCall):
                output_item = output_item_data.to_dict()
            else:
                output_item = output_item_data.to_dict()

            output.append(output_item)

        parallel_tool_calls = self.parallel_tool_calls

        presence_penalty = self.presence_penalty

        service_tier = self.service_tier

        status = self.status

        store = self.store

        temperature = self.temperature

        text = self.text.to_dict()

        tool_choice = self.tool_choice

        tools = self.tools

        top_logprobs = self.top_logprobs

        top_p = self.top_p

        truncation = self.truncation

        completed_at: int | None | Unset
        if isinstance(self.completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = self.completed_at

        error: dict[str, Any] | None | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        elif isinstance(self.error, OpenAiResponseError):
            error = self.error.to_dict()
        else:
            error = self.error

        incomplete_details: dict[str, Any] | None | Unset
        if isinstance(self.incomplete_details, Unset):
            incomplete_details = UNSET
        elif isinstance(self.incomplete_details, ResponseIncompleteDetails):
            incomplete_details = self.incomplete_details.to_dict()
        else:
            incomplete_details = self.incomplete_details

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

        max_tool_calls: int | None | Unset
        if isinstance(self.max_tool_calls, Unset):
            max_tool_calls = UNSET
        else:
            max_tool_calls = self.max_tool_calls

        previous_response_id: None | str | Unset
        if isinstance(self.previous_response_id, Unset):
            previous_response_id = UNSET
        else:
            previous_response_id = self.previous_response_id

        prompt_cache_key: None | str | Unset
        if isinstance(self.prompt_cache_key, Unset):
            prompt_cache_key = UNSET
        else:
            prompt_cache_key = self.prompt_cache_key

        reasoning: dict[str, Any] | None | Unset
        if isinstance(self.reasoning, Unset):
            reasoning = UNSET
        elif isinstance(self.reasoning, ResponseReasoning):
            reasoning = self.reasoning.to_dict()
        else:
            reasoning = self.reasoning

        safety_identifier: None | str | Unset
        if isinstance(self.safety_identifier, Unset):
            safety_identifier = UNSET
        else:
            safety_identifier = self.safety_identifier

        usage: dict[str, Any] | None | Unset
        if isinstance(self.usage, Unset):
            usage = UNSET
        elif isinstance(self.usage, ResponseUsage):
            usage = self.usage.to_dict()
        else:
            usage = self.usage

        user: None | str | Unset
        if isinstance(self.user, Unset):
            user = UNSET
        else:
            user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "background": background,
                "created_at": created_at,
                "frequency_penalty": frequency_penalty,
                "id": id,
                "metadata": metadata,
                "model": model,
                "object": object_,
                "output": output,
                "parallel_tool_calls": parallel_tool_calls,
                "presence_penalty": presence_penalty,
                "service_tier": service_tier,
                "status": status,
                "store": store,
                "temperature": temperature,
                "text": text,
                "tool_choice": tool_choice,
                "tools": tools,
                "top_logprobs": top_logprobs,
                "top_p": top_p,
                "truncation": truncation,
            }
        )
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if error is not UNSET:
            field_dict["error"] = error
        if incomplete_details is not UNSET:
            field_dict["incomplete_details"] = incomplete_details
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if max_output_tokens is not UNSET:
            field_dict["max_output_tokens"] = max_output_tokens
        if max_tool_calls is not UNSET:
            field_dict["max_tool_calls"] = max_tool_calls
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if prompt_cache_key is not UNSET:
            field_dict["prompt_cache_key"] = prompt_cache_key
        if reasoning is not UNSET:
            field_dict["reasoning"] = reasoning
        if safety_identifier is not UNSET:
            field_dict["safety_identifier"] = safety_identifier
        if usage is not UNSET:
            field_dict["usage"] = usage
        if user is not UNSET:
            field_dict["user"] = user

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.open_ai_response_error import OpenAiResponseError
        from ..models.open_ai_response_metadata import OpenAiResponseMetadata
        from ..models.response_incomplete_details import ResponseIncompleteDetails
        from ..models.response_output_item_response_function_call import (
            ResponseOutputItemResponseFunctionCall,
        )
        from ..models.response_output_item_response_mcp_call import (
            ResponseOutputItemResponseMcpCall,
        )
        from ..models.response_output_item_response_output_message import (
            ResponseOutputItemResponseOutputMessage,
        )
        from ..models.response_reasoning import ResponseReasoning
        from ..models.response_text import ResponseText
        from ..models.response_usage import ResponseUsage

        d = dict(src_dict)
        background = d.pop("background")

        created_at = d.pop("created_at")

        frequency_penalty = d.pop("frequency_penalty")

        id = d.pop("id")

        metadata = OpenAiResponseMetadata.from_dict(d.pop("metadata"))

        model = d.pop("model")

        object_ = d.pop("object")

        output = []
        _output = d.pop("output")
        for output_item_data in _output:

            def _parse_output_item(
                data: object,
            ) -> (
                ResponseOutputItemResponseFunctionCall
                | ResponseOutputItemResponseMcpCall
                | ResponseOutputItemResponseOutputMessage
            ):
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_output_item_type_0 = (
                        ResponseOutputItemResponseOutputMessage.from_dict(data)
                    )

                    return componentsschemas_response_output_item_type_0
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                try:
                    if not isinstance(data, dict):
                        raise TypeError()
                    componentsschemas_response_output_item_type_1 = (
                        ResponseOutputItemResponseMcpCall.from_dict(data)
                    )

                    return componentsschemas_response_output_item_type_1
                except (TypeError, ValueError, AttributeError, KeyError):
                    pass
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_2 = (
                    ResponseOutputItemResponseFunctionCall.from_dict(data)
                )

                return componentsschemas_response_output_item_type_2

            output_item = _parse_output_item(output_item_data)

            output.append(output_item)

        parallel_tool_calls = d.pop("parallel_tool_calls")

        presence_penalty = d.pop("presence_penalty")

        service_tier = d.pop("service_tier")

        status = d.pop("status")

        store = d.pop("store")

        temperature = d.pop("temperature")

        text = ResponseText.from_dict(d.pop("text"))

        tool_choice = d.pop("tool_choice")

        tools = cast(list[Any], d.pop("tools"))

        top_logprobs = d.pop("top_logprobs")

        top_p = d.pop("top_p")

        truncation = d.pop("truncation")

        def _parse_completed_at(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        completed_at = _parse_completed_at(d.pop("completed_at", UNSET))

        def _parse_error(data: object) -> None | OpenAiResponseError | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                error_type_1 = OpenAiResponseError.from_dict(data)

                return error_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OpenAiResponseError | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_incomplete_details(
            data: object,
        ) -> None | ResponseIncompleteDetails | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                incomplete_details_type_1 = ResponseIncompleteDetails.from_dict(data)

                return incomplete_details_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseIncompleteDetails | Unset, data)

        incomplete_details = _parse_incomplete_details(
            d.pop("incomplete_details", UNSET)
        )

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

        def _parse_max_tool_calls(data: object) -> int | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(int | None | Unset, data)

        max_tool_calls = _parse_max_tool_calls(d.pop("max_tool_calls", UNSET))

        def _parse_previous_response_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        previous_response_id = _parse_previous_response_id(
            d.pop("previous_response_id", UNSET)
        )

        def _parse_prompt_cache_key(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        prompt_cache_key = _parse_prompt_cache_key(d.pop("prompt_cache_key", UNSET))

        def _parse_reasoning(data: object) -> None | ResponseReasoning | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                reasoning_type_1 = ResponseReasoning.from_dict(data)

                return reasoning_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseReasoning | Unset, data)

        reasoning = _parse_reasoning(d.pop("reasoning", UNSET))

        def _parse_safety_identifier(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        safety_identifier = _parse_safety_identifier(d.pop("safety_identifier", UNSET))

        def _parse_usage(data: object) -> None | ResponseUsage | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                usage_type_1 = ResponseUsage.from_dict(data)

                return usage_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseUsage | Unset, data)

        usage = _parse_usage(d.pop("usage", UNSET))

        def _parse_user(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        user = _parse_user(d.pop("user", UNSET))

        open_ai_response = cls(
            background=background,
            created_at=created_at,
            frequency_penalty=frequency_penalty,
            id=id,
            metadata=metadata,
            model=model,
            object_=object_,
            output=output,
            parallel_tool_calls=parallel_tool_calls,
            presence_penalty=presence_penalty,
            service_tier=service_tier,
            status=status,
            store=store,
            temperature=temperature,
            text=text,
            tool_choice=tool_choice,
            tools=tools,
            top_logprobs=top_logprobs,
            top_p=top_p,
            truncation=truncation,
            completed_at=completed_at,
            error=error,
            incomplete_details=incomplete_details,
            instructions=instructions,
            max_output_tokens=max_output_tokens,
            max_tool_calls=max_tool_calls,
            previous_response_id=previous_response_id,
            prompt_cache_key=prompt_cache_key,
            reasoning=reasoning,
            safety_identifier=safety_identifier,
            usage=usage,
            user=user,
        )

        open_ai_response.additional_properties = d
        return open_ai_response

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
