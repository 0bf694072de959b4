from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.output_format_type import OutputFormatType
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.output_format_schema_type_0 import OutputFormatSchemaType0


T = TypeVar("T", bound="OutputFormat")


@_attrs_define
class OutputFormat:
    """The answer must be one JSON value of this format. It is asked of the model where the
    provider can constrain its output, and checked before `complete`: an answer that does
    not fit is taken back unseen and asked for once more with what was wrong; a second
    misfit ends the turn with an `error` event `output_mismatch` naming the place in the
    value. The answer's text (`complete.payload.message`) is the JSON. A model that
    cannot answer in a format: 422 `format_unsupported`; a schema that is no JSON schema:
    422 `invalid_response_format`.

        Attributes:
            type_ (OutputFormatType): What a structured answer is.
            description (None | str | Unset): What the value is, for the model.
            name (None | str | Unset): The format's name (`json_schema`: required; letters, digits, `_` and `-`).
            schema (None | OutputFormatSchemaType0 | Unset): The JSON schema the value must fit (`json_schema`: required).
            strict (bool | None | Unset): Ask the provider to keep to the schema exactly (OpenAI's strict mode); the answer
                is checked either way.
    """

    type_: OutputFormatType
    description: None | str | Unset = UNSET
    name: None | str | Unset = UNSET
    schema: None | OutputFormatSchemaType0 | Unset = UNSET
    strict: bool | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.output_format_schema_type_0 import OutputFormatSchemaType0

        type_ = self.type_.value

        description: None | str | Unset
        if isinstance(self.description, Unset):
            description = UNSET
        else:
            description = self.description

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        schema: dict[str, Any] | None | Unset
        if isinstance(self.schema, Unset):
            schema = UNSET
        elif isinstance(self.schema, OutputFormatSchemaType0):
            schema = self.schema.to_dict()
        else:
            schema = self.schema

        strict: bool | None | Unset
        if isinstance(self.strict, Unset):
            strict = UNSET
        else:
            strict = self.strict

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "type": type_,
            }
        )
        if description is not UNSET:
            field_dict["description"] = description
        if name is not UNSET:
            field_dict["name"] = name
        if schema is not UNSET:
            field_dict["schema"] = schema
        if strict is not UNSET:
            field_dict["strict"] = strict

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.output_format_schema_type_0 import OutputFormatSchemaType0

        d = dict(src_dict)
        type_ = OutputFormatType(d.pop("type"))

        def _parse_description(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        description = _parse_description(d.pop("description", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_schema(data: object) -> None | OutputFormatSchemaType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                schema_type_0 = OutputFormatSchemaType0.from_dict(data)

                return schema_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OutputFormatSchemaType0 | Unset, data)

        schema = _parse_schema(d.pop("schema", UNSET))

        def _parse_strict(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        strict = _parse_strict(d.pop("strict", UNSET))

        output_format = cls(
            type_=type_,
            description=description,
            name=name,
            schema=schema,
            strict=strict,
        )

        return output_format
