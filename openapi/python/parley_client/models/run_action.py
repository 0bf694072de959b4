from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

from ..models.server_action_name import ServerActionName

T = TypeVar("T", bound="RunAction")


@_attrs_define
class RunAction:
    """An action to run.

    Attributes:
        action (ServerActionName): The actions the server runs.
    """

    action: ServerActionName

    def to_dict(self) -> dict[str, Any]:
        action = self.action.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "action": action,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        action = ServerActionName(d.pop("action"))

        run_action = cls(
            action=action,
        )

        return run_action
