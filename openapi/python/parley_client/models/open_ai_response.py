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
    from ..models.response_output_item_response_mcp_call import (
        ResponseOutputItemResponseMcpCall,
    )
    from ..models.response_output_item_response_output_message import (
        ResponseOutputItemResponseOutputMessage,
    )
    from ..models.response_text import ResponseText
    from ..models.response_usage import ResponseUsage


T = TypeVar("T", bound="OpenAiResponse")


@_attrs_define
class OpenAiResponse:
    """A response: one Parley prompt, in the Responses API's shape.

    Attributes:
        background (bool):
        created_at (int):
        id (str): `resp_<the Parley prompt's id>`.
        metadata (OpenAiResponseMetadata):
        model (str):
        object_ (str): Always `response`.
        output (list[ResponseOutputItemResponseMcpCall | ResponseOutputItemResponseOutputMessage]):
        parallel_tool_calls (bool):
        status (str): `queued`, `in_progress`, `completed`, `failed`, `cancelled` or `incomplete`.
        store (bool): Always true: every response is kept (as a Parley prompt).
        text (ResponseText): The response's text settings.
        tool_choice (str): Always `auto`.
        tools (list[Any]): Always empty: Parley's functions are the chat tool's, run by Parley.
        truncation (str): Always `disabled`.
        completed_at (int | Unset):
        error (OpenAiResponseError | Unset): Why a response failed.
        incomplete_details (ResponseIncompleteDetails | Unset): Why a response is incomplete.
        instructions (str | Unset):
        previous_response_id (str | Unset):
        temperature (float | Unset):
        top_p (float | Unset):
        usage (ResponseUsage | Unset): Token counts of a response.
        user (str | Unset):
    """

    background: bool
    created_at: int
    id: str
    metadata: OpenAiResponseMetadata
    model: str
    object_: str
    output: list[
        ResponseOutputItemResponseMcpCall | ResponseOutputItemResponseOutputMessage
    ]
    parallel_tool_calls: bool
    status: str
    store: bool
    text: ResponseText
    tool_choice: str
    tools: list[Any]
    truncation: str
    completed_at: int | Unset = UNSET
    error: OpenAiResponseError | Unset = UNSET
    incomplete_details: ResponseIncompleteDetails | Unset = UNSET
    instructions: str | Unset = UNSET
    previous_response_id: str | Unset = UNSET
    temperature: float | Unset = UNSET
    top_p: float | Unset = UNSET
    usage: ResponseUsage | Unset = UNSET
    user: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_output_item_response_output_message import (
            ResponseOutputItemResponseOutputMessage,
        )

        background = self.background

        created_at = self.created_at

        id = self.id

        metadata = self.metadata.to_dict()

        model = self.model

        object_ = self.object_

        output = []
        for output_item_data in self.output:
            output_item: dict[str, Any]
            if isinstance(output_item_data, ResponseOutputItemResponseOutputMessage):
                output_item = output_item_data.to_dict()
            else:
                output_item = output_item_data.to_dict()

            output.append(output_item)

        parallel_tool_calls = self.parallel_tool_calls

        status = self.status

        store = self.store

        text = self.text.to_dict()

        tool_choice = self.tool_choice

        tools = self.tools

        truncation = self.truncation

        completed_at = self.completed_at

        error: dict[str, Any] | Unset = UNSET
        if not isinstance(self.error, Unset):
            error = self.error.to_dict()

        incomplete_details: dict[str, Any] | Unset = UNSET
        if not isinstance(self.incomplete_details, Unset):
            incomplete_details = self.incomplete_details.to_dict()

        instructions = self.instructions

        previous_response_id = self.previous_response_id

        temperature = self.temperature

        top_p = self.top_p

        usage: dict[str, Any] | Unset = UNSET
        if not isinstance(self.usage, Unset):
            usage = self.usage.to_dict()

        user = self.user

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "background": background,
                "created_at": created_at,
                "id": id,
                "metadata": metadata,
                "model": model,
                "object": object_,
                "output": output,
                "parallel_tool_calls": parallel_tool_calls,
                "status": status,
                "store": store,
                "text": text,
                "tool_choice": tool_choice,
                "tools": tools,
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
        if previous_response_id is not UNSET:
            field_dict["previous_response_id"] = previous_response_id
        if temperature is not UNSET:
            field_dict["temperature"] = temperature
        if top_p is not UNSET:
            field_dict["top_p"] = top_p
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
        from ..models.response_output_item_response_mcp_call import (
            ResponseOutputItemResponseMcpCall,
        )
        from ..models.response_output_item_response_output_message import (
            ResponseOutputItemResponseOutputMessage,
        )
        from ..models.response_text import ResponseText
        from ..models.response_usage import ResponseUsage

        d = dict(src_dict)
        background = d.pop("background")

        created_at = d.pop("created_at")

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
                ResponseOutputItemResponseMcpCall
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
                if not isinstance(data, dict):
                    raise TypeError()
                componentsschemas_response_output_item_type_1 = (
                    ResponseOutputItemResponseMcpCall.from_dict(data)
                )

                return componentsschemas_response_output_item_type_1

            output_item = _parse_output_item(output_item_data)

            output.append(output_item)

        parallel_tool_calls = d.pop("parallel_tool_calls")

        status = d.pop("status")

        store = d.pop("store")

        text = ResponseText.from_dict(d.pop("text"))

        tool_choice = d.pop("tool_choice")

        tools = cast(list[Any], d.pop("tools"))

        truncation = d.pop("truncation")

        completed_at = d.pop("completed_at", UNSET)

        _error = d.pop("error", UNSET)
        error: OpenAiResponseError | Unset
        if isinstance(_error, Unset):
            error = UNSET
        else:
            error = OpenAiResponseError.from_dict(_error)

        _incomplete_details = d.pop("incomplete_details", UNSET)
        incomplete_details: ResponseIncompleteDetails | Unset
        if isinstance(_incomplete_details, Unset):
            incomplete_details = UNSET
        else:
            incomplete_details = ResponseIncompleteDetails.from_dict(
                _incomplete_details
            )

        instructions = d.pop("instructions", UNSET)

        previous_response_id = d.pop("previous_response_id", UNSET)

        temperature = d.pop("temperature", UNSET)

        top_p = d.pop("top_p", UNSET)

        _usage = d.pop("usage", UNSET)
        usage: ResponseUsage | Unset
        if isinstance(_usage, Unset):
            usage = UNSET
        else:
            usage = ResponseUsage.from_dict(_usage)

        user = d.pop("user", UNSET)

        open_ai_response = cls(
            background=background,
            created_at=created_at,
            id=id,
            metadata=metadata,
            model=model,
            object_=object_,
            output=output,
            parallel_tool_calls=parallel_tool_calls,
            status=status,
            store=store,
            text=text,
            tool_choice=tool_choice,
            tools=tools,
            truncation=truncation,
            completed_at=completed_at,
            error=error,
            incomplete_details=incomplete_details,
            instructions=instructions,
            previous_response_id=previous_response_id,
            temperature=temperature,
            top_p=top_p,
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
