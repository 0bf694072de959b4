from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.payload_source_kind import PayloadSourceKind
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.payload_type_info_frontend_config import PayloadTypeInfoFrontendConfig
    from ..models.payload_type_info_schema import PayloadTypeInfoSchema


T = TypeVar("T", bound="PayloadTypeInfo")


@_attrs_define
class PayloadTypeInfo:
    """A payload type: what a `custom_payload` or a `tool_complete.payload` of this `type`
    holds and how to show it.

        Attributes:
            description (str):
            llm_instructions (str): What the model is told about it.
            name (str):
            schema (PayloadTypeInfoSchema): The JSON schema its `data` fits.
            source (PayloadSourceKind): Where a payload comes from.
            frontend_config (PayloadTypeInfoFrontendConfig | Unset): What a frontend needs to render it (title, icon, panel
                width…), as configured.
    """

    description: str
    llm_instructions: str
    name: str
    schema: PayloadTypeInfoSchema
    source: PayloadSourceKind
    frontend_config: PayloadTypeInfoFrontendConfig | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        llm_instructions = self.llm_instructions

        name = self.name

        schema = self.schema.to_dict()

        source = self.source.value

        frontend_config: dict[str, Any] | Unset = UNSET
        if not isinstance(self.frontend_config, Unset):
            frontend_config = self.frontend_config.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "llm_instructions": llm_instructions,
                "name": name,
                "schema": schema,
                "source": source,
            }
        )
        if frontend_config is not UNSET:
            field_dict["frontend_config"] = frontend_config

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.payload_type_info_frontend_config import (
            PayloadTypeInfoFrontendConfig,
        )
        from ..models.payload_type_info_schema import PayloadTypeInfoSchema

        d = dict(src_dict)
        description = d.pop("description")

        llm_instructions = d.pop("llm_instructions")

        name = d.pop("name")

        schema = PayloadTypeInfoSchema.from_dict(d.pop("schema"))

        source = PayloadSourceKind(d.pop("source"))

        _frontend_config = d.pop("frontend_config", UNSET)
        frontend_config: PayloadTypeInfoFrontendConfig | Unset
        if isinstance(_frontend_config, Unset):
            frontend_config = UNSET
        else:
            frontend_config = PayloadTypeInfoFrontendConfig.from_dict(_frontend_config)

        payload_type_info = cls(
            description=description,
            llm_instructions=llm_instructions,
            name=name,
            schema=schema,
            source=source,
            frontend_config=frontend_config,
        )

        payload_type_info.additional_properties = d
        return payload_type_info

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
