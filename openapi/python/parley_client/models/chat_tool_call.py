from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.chat_function_call import ChatFunctionCall


T = TypeVar("T", bound="ChatToolCall")


@_attrs_define
class ChatToolCall:
    """A call of one of the caller's functions: run it and send its result back as a `tool`
    message with this `id` as its `tool_call_id`.

        Attributes:
            function (ChatFunctionCall): The function called and its arguments.
            id (str): `call_<hex>`.
            type_ (str): Always `function`.
    """

    function: ChatFunctionCall
    id: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        function = self.function.to_dict()

        id = self.id

        type_ = self.type_

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
        from ..models.chat_function_call import ChatFunctionCall

        d = dict(src_dict)
        function = ChatFunctionCall.from_dict(d.pop("function"))

        id = d.pop("id")

        type_ = d.pop("type")

        chat_tool_call = cls(
            function=function,
            id=id,
            type_=type_,
        )

        chat_tool_call.additional_properties = d
        return chat_tool_call

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
