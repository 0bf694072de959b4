from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.response_text_format_param import ResponseTextFormatParam


T = TypeVar("T", bound="ResponseTextParam")


@_attrs_define
class ResponseTextParam:
    """A response's `text` settings.

    Attributes:
        format_ (None | ResponseTextFormatParam | Unset):
    """

    format_: None | ResponseTextFormatParam | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.response_text_format_param import ResponseTextFormatParam

        format_: dict[str, Any] | None | Unset
        if isinstance(self.format_, Unset):
            format_ = UNSET
        elif isinstance(self.format_, ResponseTextFormatParam):
            format_ = self.format_.to_dict()
        else:
            format_ = self.format_

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if format_ is not UNSET:
            field_dict["format"] = format_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.response_text_format_param import ResponseTextFormatParam

        d = dict(src_dict)

        def _parse_format_(data: object) -> None | ResponseTextFormatParam | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                format_type_1 = ResponseTextFormatParam.from_dict(data)

                return format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ResponseTextFormatParam | Unset, data)

        format_ = _parse_format_(d.pop("format", UNSET))

        response_text_param = cls(
            format_=format_,
        )

        response_text_param.additional_properties = d
        return response_text_param

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
