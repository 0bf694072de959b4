from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.exported_tool_kind import ExportedToolKind

if TYPE_CHECKING:
    from ..models.exported_function_call import ExportedFunctionCall


T = TypeVar("T", bound="ExportedToolCall")


@_attrs_define
class ExportedToolCall:
    """A function call of an assistant message.

    Attributes:
        function (ExportedFunctionCall): Which function was called, and with what.
        id (str): The call's id, which its `tool` message names.
        type_ (ExportedToolKind): The kind of a tool in OpenAI's format: always `function`.
    """

    function: ExportedFunctionCall
    id: str
    type_: ExportedToolKind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        id = self.id

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "function": function,
                "id": id,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.exported_function_call import ExportedFunctionCall

        d = dict(src_dict)
        function = ExportedFunctionCall.from_dict(d.pop("function"))

        id = d.pop("id")

        type_ = ExportedToolKind(d.pop("type"))

        exported_tool_call = cls(
            function=function,
            id=id,
            type_=type_,
        )

        exported_tool_call.additional_properties = d
        return exported_tool_call

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
