from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="FeedbackByTool")


@_attrs_define
class FeedbackByTool:
    """Ups and downs of one chat tool.

    Attributes:
        down (int):
        tool_id (UUID):
        tool_name (str):
        up (int):
    """

    down: int
    tool_id: UUID
    tool_name: str
    up: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        down = self.down

        tool_id = str(self.tool_id)

        tool_name = self.tool_name

        up = self.up

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "down": down,
                "tool_id": tool_id,
                "tool_name": tool_name,
                "up": up,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        down = d.pop("down")

        tool_id = UUID(d.pop("tool_id"))

        tool_name = d.pop("tool_name")

        up = d.pop("up")

        feedback_by_tool = cls(
            down=down,
            tool_id=tool_id,
            tool_name=tool_name,
            up=up,
        )

        feedback_by_tool.additional_properties = d
        return feedback_by_tool

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
