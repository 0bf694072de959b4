from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_definition import ToolDefinition


T = TypeVar("T", bound="UpdateTool")


@_attrs_define
class UpdateTool:
    """Changes to a tool; absent fields stay as they are. The group cannot change.

    Attributes:
        definition (None | ToolDefinition | Unset): Replaces the definition as a whole.
        name (None | str | Unset):
        type_ (None | str | Unset):
    """

    definition: None | ToolDefinition | Unset = UNSET
    name: None | str | Unset = UNSET
    type_: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_definition import ToolDefinition

        definition: dict[str, Any] | None | Unset
        if isinstance(self.definition, Unset):
            definition = UNSET
        elif isinstance(self.definition, ToolDefinition):
            definition = self.definition.to_dict()
        else:
            definition = self.definition

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        type_: None | str | Unset
        if isinstance(self.type_, Unset):
            type_ = UNSET
        else:
            type_ = self.type_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if definition is not UNSET:
            field_dict["definition"] = definition
        if name is not UNSET:
            field_dict["name"] = name
        if type_ is not UNSET:
            field_dict["type"] = type_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_definition import ToolDefinition

        d = dict(src_dict)

        def _parse_definition(data: object) -> None | ToolDefinition | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                definition_type_1 = ToolDefinition.from_dict(data)

                return definition_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolDefinition | Unset, data)

        definition = _parse_definition(d.pop("definition", UNSET))

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_type_(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        type_ = _parse_type_(d.pop("type", UNSET))

        update_tool = cls(
            definition=definition,
            name=name,
            type_=type_,
        )

        return update_tool
