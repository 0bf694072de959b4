from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.chat_role import ChatRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_input_content_part import ResponseInputContentPart


T = TypeVar("T", bound="ResponseInputItem")


@_attrs_define
class ResponseInputItem:
    """One item of a response's input, of the kind `type` names (`message` when absent):

    * `message` — `role` and `content` (a string, or `input_text` / `output_text` parts);
    * `item_reference` — `id` of an output item of one of the caller's responses
    (`msg_…`, `mcp_…`, `fc_…`), read as that item;
    * `mcp_call` — a call of Parley's own functions (`name`, `arguments`, `output`), as a
    response's output has it;
    * `function_call` (`call_id`, `name`, `arguments`) and `function_call_output`
    (`call_id`, `output`) — a call of the client's function and its result; the
    `function_call_output` items that end the input answer the calls a response
    returned and continue its turn;
    * `reasoning` — a model's reasoning (`summary`, `encrypted_content`).

    Calls, their results and reasoning are part of the conversation the input describes,
    not its text: like a Parley conversation's own history, the history a new
    conversation imports is its messages (docs/openai.md).

        Attributes:
            arguments (None | str | Unset): `function_call`, `mcp_call`: its arguments (a JSON text).
            call_id (None | str | Unset): `function_call`, `function_call_output`: the call's id.
            content (list[ResponseInputContentPart] | None | str | Unset): `message`: what it says.
            encrypted_content (None | str | Unset): `reasoning`: the provider's encrypted reasoning.
            error (None | str | Unset): `mcp_call`: why it failed.
            id (None | str | Unset): `item_reference`: the item referred to; other items: their own id.
            name (None | str | Unset): `function_call`, `mcp_call`: the function called.
            output (Any | Unset): `function_call_output`: the result (a string or content parts); `mcp_call`: its
                output.
            role (ChatRole | None | Unset): `message`: who wrote it.
            server_label (None | str | Unset): `mcp_call`: the server (`parley`).
            status (None | str | Unset): The item's status as its response had it.
            summary (list[Any] | None | Unset): `reasoning`: its summary parts.
            type_ (None | str | Unset): `message` (the default), `item_reference`, `mcp_call`, `function_call`,
                `function_call_output` or `reasoning`.
    """

    arguments: None | str | Unset = UNSET
    call_id: None | str | Unset = UNSET
    content: list[ResponseInputContentPart] | None | str | Unset = UNSET
    encrypted_content: None | str | Unset = UNSET
    error: None | str | Unset = UNSET
    id: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    output: Any | Unset = UNSET
    role: ChatRole | None | Unset = UNSET
    server_label: None | str | Unset = UNSET
    status: None | str | Unset = UNSET
    summary: list[Any] | None | Unset = UNSET
    type_: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments: None | str | Unset
        if isinstance(self.arguments, Unset):
            arguments = UNSET
        else:
            arguments = self.arguments

        call_id: None | str | Unset
        if isinstance(self.call_id, Unset):
            call_id = UNSET
        else:
            call_id = self.call_id

        content: list[dict[str, Any]] | None | str | Unset
        if isinstance(self.content, Unset):
            content = UNSET
        elif isinstance(self.content, list):
            content = []
            for (
                componentsschemas_response_input_content_type_1_item_data
            ) in self.content:
                componentsschemas_response_input_content_type_1_item = (
                    componentsschemas_response_input_content_type_1_item_data.to_dict()
                )
                content.append(componentsschemas_response_input_content_type_1_item)

        else:
            content = self.content

        encrypted_content: None | str | Unset
        if isinstance(self.encrypted_content, Unset):
            encrypted_content = UNSET
        else:
            encrypted_content = self.encrypted_content

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        id: None | str | Unset
        if isinstance(self.id, Unset):
            id = UNSET
        else:
            id = self.id

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        output = self.output

        role: None | str | Unset
        if isinstance(self.role, Unset):
            role = UNSET
        elif isinstance(self.role, ChatRole):
            role = self.role.value
        else:
            role = self.role

        server_label: None | str | Unset
        if isinstance(self.server_label, Unset):
            server_label = UNSET
        else:
            server_label = self.server_label

        status: None | str | Unset
        if isinstance(self.status, Unset):
            status = UNSET
        else:
            status = self.status

        summary: list[Any] | None | Unset
        if isinstance(self.summary, Unset):
            summary = UNSET
        elif isinstance(self.summary, list):
            summary = self.summary

        else:
            summary = self.summary

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if arguments is not UNSET:
            field_dict["arguments"] = arguments
        if call_id is not UNSET:
            field_dict["call_id"] = call_id
        if content is not UNSET:
            field_dict["content"] = content
        if encrypted_content is not UNSET:
            field_dict["encrypted_content"] = encrypted_content
        if error is not UNSET:
            field_dict["error"] = error
        if id is not UNSET:
            field_dict["id"] = id
        if name is not UNSET:
            field_dict["name"] = name
        if output is not UNSET:
            field_dict["output"] = output
        if role is not UNSET:
            field_dict["role"] = role
        if server_label is not UNSET:
            field_dict["server_label"] = server_label
        if status is not UNSET:
            field_dict["status"] = status
        if summary is not UNSET:
            field_dict["summary"] = summary
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_input_content_part import ResponseInputContentPart

        d = dict(src_dict)

        def _parse_arguments(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        arguments = _parse_arguments(d.pop("arguments", UNSET))

        def _parse_call_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        call_id = _parse_call_id(d.pop("call_id", UNSET))

        def _parse_content(
            data: object,
        ) -> list[ResponseInputContentPart] | None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                componentsschemas_response_input_content_type_1 = []
                _componentsschemas_response_input_content_type_1 = data
                for (
                    componentsschemas_response_input_content_type_1_item_data
                ) in _componentsschemas_response_input_content_type_1:
                    componentsschemas_response_input_content_type_1_item = (
                        ResponseInputContentPart.from_dict(
                            componentsschemas_response_input_content_type_1_item_data
                        )
                    )

                    componentsschemas_response_input_content_type_1.append(
                        componentsschemas_response_input_content_type_1_item
                    )

                return componentsschemas_response_input_content_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ResponseInputContentPart] | None | str | Unset, data)

        content = _parse_content(d.pop("content", UNSET))

        def _parse_encrypted_content(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        encrypted_content = _parse_encrypted_content(d.pop("encrypted_content", UNSET))

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        id = _parse_id(d.pop("id", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        output = d.pop("output", UNSET)

        def _parse_role(data: object) -> ChatRole | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                role_type_1 = ChatRole(data)

                return role_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatRole | None | Unset, data)

        role = _parse_role(d.pop("role", UNSET))

        def _parse_server_label(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        server_label = _parse_server_label(d.pop("server_label", UNSET))

        def _parse_status(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        status = _parse_status(d.pop("status", UNSET))

        def _parse_summary(data: object) -> list[Any] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                summary_type_0 = cast(list[Any], data)

                return summary_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[Any] | None | Unset, data)

        summary = _parse_summary(d.pop("summary", UNSET))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        response_input_item = cls(
            arguments=arguments,
            call_id=call_id,
            content=content,
            encrypted_content=encrypted_content,
            error=error,
            id=id,
            name=name,
            output=output,
            role=role,
            server_label=server_label,
            status=status,
            summary=summary,
            type_=type_,
        )

        response_input_item.additional_properties = d
        return response_input_item

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
