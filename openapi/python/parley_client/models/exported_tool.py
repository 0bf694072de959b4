from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.exported_tool_kind import ExportedToolKind

if TYPE_CHECKING:
    from ..models.exported_function import ExportedFunction


T = TypeVar("T", bound="ExportedTool")


@_attrs_define
class ExportedTool:
    """A function the conversation's model was offered.

    Attributes:
        function (ExportedFunction): A function's name, description and JSON schema.
        type_ (ExportedToolKind): The kind of a tool in OpenAI's format: always `function`.
    """

    function: ExportedFunction
    type_: ExportedToolKind
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        type_ = self.type_.value

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "function": function,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.exported_function import ExportedFunction

        d = dict(src_dict)
        function = ExportedFunction.from_dict(d.pop("function"))

        type_ = ExportedToolKind(d.pop("type"))

        exported_tool = cls(
            function=function,
            type_=type_,
        )

        exported_tool.additional_properties = d
        return exported_tool

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
