from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseMcpCall")


@_attrs_define
class ResponseMcpCall:
    """A function Parley ran for the model (a call already answered, in the shape of a
    remote MCP tool call).

        Attributes:
            arguments (str): Its arguments, as a JSON string.
            id (str):
            name (str): The function.
            server_label (str): Always `parley`.
            status (str): `in_progress`, `completed`, `failed` or `incomplete`.
            type_ (str): Always `mcp_call`.
            error (None | str | Unset): Why it failed (null unless it did), as OpenAI's `mcp_call` says it: a string.
            output (None | str | Unset): Its result, as a JSON string (null until it ran, or when it failed).
    """

    arguments: str
    id: str
    name: str
    server_label: str
    status: str
    type_: str
    error: None | str | Unset = UNSET
    output: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        id = self.id

        name = self.name

        server_label = self.server_label

        status = self.status

        type_ = self.type_

        error: None | str | Unset
        if isinstance(self.error, Unset):
            error = UNSET
        else:
            error = self.error

        output: None | str | Unset
        if isinstance(self.output, Unset):
            output = UNSET
        else:
            output = self.output

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "id": id,
                "name": name,
                "server_label": server_label,
                "status": status,
                "type": type_,
            }
        )
        if error is not UNSET:
            field_dict["error"] = error
        if output is not UNSET:
            field_dict["output"] = output

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        id = d.pop("id")

        name = d.pop("name")

        server_label = d.pop("server_label")

        status = d.pop("status")

        type_ = d.pop("type")

        def _parse_error(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        error = _parse_error(d.pop("error", UNSET))

        def _parse_output(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        output = _parse_output(d.pop("output", UNSET))

        response_mcp_call = cls(
            arguments=arguments,
            id=id,
            name=name,
            server_label=server_label,
            status=status,
            type_=type_,
            error=error,
            output=output,
        )

        response_mcp_call.additional_properties = d
        return response_mcp_call

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
