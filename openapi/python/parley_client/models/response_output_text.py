from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="ResponseOutputText")


@_attrs_define
class ResponseOutputText:
    """A text part of an output message.

    Attributes:
        annotations (list[Any]): Always empty.
        logprobs (list[Any]): Always empty.
        text (str):
        type_ (str): Always `output_text`.
    """

    annotations: list[Any]
    logprobs: list[Any]
    text: str
    type_: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        annotations = self.annotations

        logprobs = self.logprobs

        text = self.text

        type_ = self.type_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "annotations": annotations,
                "logprobs": logprobs,
                "text": text,
                "type": type_,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        annotations = cast(list[Any], d.pop("annotations"))

        logprobs = cast(list[Any], d.pop("logprobs"))

        text = d.pop("text")

        type_ = d.pop("type")

        response_output_text = cls(
            annotations=annotations,
            logprobs=logprobs,
            text=text,
            type_=type_,
        )

        response_output_text.additional_properties = d
        return response_output_text

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
