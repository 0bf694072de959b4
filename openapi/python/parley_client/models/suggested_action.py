from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.action_handler import ActionHandler
from ..types import UNSET, Unset

T = TypeVar("T", bound="SuggestedAction")


@_attrs_define
class SuggestedAction:
    """A suggested action (a button), handled by the client or the server.

    Attributes:
        action (str):
        handler (ActionHandler): Who handles a suggested action.
        label (str):
        data (Any | Unset):
        style (str | Unset):
    """

    action: str
    handler: ActionHandler
    label: str
    data: Any | Unset = UNSET
    style: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action = self.action

        handler = self.handler.value

        label = self.label

        data = self.data

        style = self.style

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "action": action,
                "handler": handler,
                "label": label,
            }
        )
        if data is not UNSET:
            field_dict["data"] = data
        if style is not UNSET:
            field_dict["style"] = style

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = d.pop("action")

        handler = ActionHandler(d.pop("handler"))

        label = d.pop("label")

        data = d.pop("data", UNSET)

        style = d.pop("style", UNSET)

        suggested_action = cls(
            action=action,
            handler=handler,
            label=label,
            data=data,
            style=style,
        )

        suggested_action.additional_properties = d
        return suggested_action

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
