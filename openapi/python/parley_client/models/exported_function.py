from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.exported_function_parameters import ExportedFunctionParameters


T = TypeVar("T", bound="ExportedFunction")


@_attrs_define
class ExportedFunction:
    """A function's name, description and JSON schema.

    Attributes:
        description (str):
        name (str):
        parameters (ExportedFunctionParameters): The JSON schema of its arguments.
    """

    description: str
    name: str
    parameters: ExportedFunctionParameters
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        name = self.name

        parameters = self.parameters.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "name": name,
                "parameters": parameters,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.exported_function_parameters import ExportedFunctionParameters

        d = dict(src_dict)
        description = d.pop("description")

        name = d.pop("name")

        parameters = ExportedFunctionParameters.from_dict(d.pop("parameters"))

        exported_function = cls(
            description=description,
            name=name,
            parameters=parameters,
        )

        exported_function.additional_properties = d
        return exported_function

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
