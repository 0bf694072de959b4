from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.tool_module_config_type_0 import ToolModuleConfigType0


T = TypeVar("T", bound="ToolModule")


@_attrs_define
class ToolModule:
    """A module enabled for a tool.

    Attributes:
        name (str): The module's name (e.g. `pii_redactor`, `safety_filter`, `analytics`, or one
            defined in the deployment's configuration).
        config (None | ToolModuleConfigType0 | Unset): Settings for this tool, merged key by key over the deployment's
            settings of the
            module (its priority cannot be changed here).
    """

    name: str
    config: None | ToolModuleConfigType0 | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.tool_module_config_type_0 import ToolModuleConfigType0

        name = self.name

        config: dict[str, Any] | None | Unset
        if isinstance(self.config, Unset):
            config = UNSET
        elif isinstance(self.config, ToolModuleConfigType0):
            config = self.config.to_dict()
        else:
            config = self.config

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if config is not UNSET:
            field_dict["config"] = config

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.tool_module_config_type_0 import ToolModuleConfigType0

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_config(data: object) -> None | ToolModuleConfigType0 | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                config_type_0 = ToolModuleConfigType0.from_dict(data)

                return config_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | ToolModuleConfigType0 | Unset, data)

        config = _parse_config(d.pop("config", UNSET))

        tool_module = cls(
            name=name,
            config=config,
        )

        return tool_module
