from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.chat_function_def import ChatFunctionDef


T = TypeVar("T", bound="ChatTool")


@_attrs_define
class ChatTool:
    """A function the caller offers the model (`tools`).

    Attributes:
        function (ChatFunctionDef): What a caller's function is.
        type_ (str): `function` (the only kind).
    """

    function: ChatFunctionDef
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        type_ = self.type_

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
        from ..models.chat_function_def import ChatFunctionDef

        d = dict(src_dict)
        function = ChatFunctionDef.from_dict(d.pop("function"))

        type_ = d.pop("type")

        chat_tool = cls(
            function=function,
            type_=type_,
        )

        chat_tool.additional_properties = d
        return chat_tool

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
