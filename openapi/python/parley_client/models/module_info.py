from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.hook import Hook
from ..models.module_kind_name import ModuleKindName

if TYPE_CHECKING:
    from ..models.module_info_config import ModuleInfoConfig


T = TypeVar("T", bound="ModuleInfo")


@_attrs_define
class ModuleInfo:
    """A module of the deployment.

    Attributes:
        config (ModuleInfoConfig): The deployment's settings of the module, which a tool's `config` for it
            overrides key by key.
        description (str): What it does and which settings it reads.
        fail_closed (bool): An error or a timeout blocks the message instead of being skipped.
        hooks (list[Hook]): The hooks it runs at.
        kind (ModuleKindName): What a module does, by the code that runs it.
        name (str): What a tool definition's `modules` names it by.
        priority (int): 1–99; lower runs first.
        timeout_ms (int): How long one run may take, in milliseconds.
    """

    config: ModuleInfoConfig
    description: str
    fail_closed: bool
    hooks: list[Hook]
    kind: ModuleKindName
    name: str
    priority: int
    timeout_ms: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config.to_dict()

        description = self.description

        fail_closed = self.fail_closed

        hooks = []
        for hooks_item_data in self.hooks:
            hooks_item = hooks_item_data.value
            hooks.append(hooks_item)

        kind = self.kind.value

        name = self.name

        priority = self.priority

        timeout_ms = self.timeout_ms

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "description": description,
                "fail_closed": fail_closed,
                "hooks": hooks,
                "kind": kind,
                "name": name,
                "priority": priority,
                "timeout_ms": timeout_ms,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.module_info_config import ModuleInfoConfig

        d = dict(src_dict)
        config = ModuleInfoConfig.from_dict(d.pop("config"))

        description = d.pop("description")

        fail_closed = d.pop("fail_closed")

        hooks = []
        _hooks = d.pop("hooks")
        for hooks_item_data in _hooks:
            hooks_item = Hook(hooks_item_data)

            hooks.append(hooks_item)

        kind = ModuleKindName(d.pop("kind"))

        name = d.pop("name")

        priority = d.pop("priority")

        timeout_ms = d.pop("timeout_ms")

        module_info = cls(
            config=config,
            description=description,
            fail_closed=fail_closed,
            hooks=hooks,
            kind=kind,
            name=name,
            priority=priority,
            timeout_ms=timeout_ms,
        )

        module_info.additional_properties = d
        return module_info

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
