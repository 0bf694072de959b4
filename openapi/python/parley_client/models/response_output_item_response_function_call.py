from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.response_output_item_response_function_call_type import (
    ResponseOutputItemResponseFunctionCallType,
)

T = TypeVar("T", bound="ResponseOutputItemResponseFunctionCall")


@_attrs_define
class ResponseOutputItemResponseFunctionCall:
    """One item of a response's output.

    Attributes:
        arguments (str): JSON text that fits the function's `parameters`.
        call_id (str): `call_<hex>`.
        id (str): `fc_<response>_<n>`.
        name (str):
        status (str): `in_progress` while announced, then `completed`.
        type_ (ResponseOutputItemResponseFunctionCallType): Always `function_call`. Example: function_call.
    """

    arguments: str
    call_id: str
    id: str
    name: str
    status: str
    type_: ResponseOutputItemResponseFunctionCallType
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        arguments = self.arguments

        call_id = self.call_id

        id = self.id

        name = self.name

        status = self.status

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "arguments": arguments,
                "call_id": call_id,
                "id": id,
                "name": name,
                "status": status,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        arguments = d.pop("arguments")

        call_id = d.pop("call_id")

        id = d.pop("id")

        name = d.pop("name")

        status = d.pop("status")

        type_ = ResponseOutputItemResponseFunctionCallType(d.pop("type"))

        response_output_item_response_function_call = cls(
            arguments=arguments,
            call_id=call_id,
            id=id,
            name=name,
            status=status,
            type_=type_,
        )

        response_output_item_response_function_call.additional_properties = d
        return response_output_item_response_function_call

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
