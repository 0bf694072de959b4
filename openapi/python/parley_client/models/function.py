from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.function_mode import FunctionMode
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.function_parameters import FunctionParameters


T = TypeVar("T", bound="Function")


@_attrs_define
class Function:
    """A function models may call, as a tool definition names it.

    Attributes:
        description (str):
        mode (FunctionMode): How a function answers.
        name (str):
        parameters (FunctionParameters): The JSON schema of its arguments.
        permissions (list[str]): What a caller needs to call it.
        requires_approval (bool): Every call waits for the session's owner to approve it (a tool may ask it of any
            function: its definition's `approval_required`).
        timeout_s (int): How long one call may run, in seconds.
        payload_type (str | Unset): The payload type its results carry (see `GET /v1/payload-types`).
    """

    description: str
    mode: FunctionMode
    name: str
    parameters: FunctionParameters
    permissions: list[str]
    requires_approval: bool
    timeout_s: int
    payload_type: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        description = self.description

        mode = self.mode.value

        name = self.name

        parameters = self.parameters.to_dict()

        permissions = self.permissions

        requires_approval = self.requires_approval

        timeout_s = self.timeout_s

        payload_type = self.payload_type

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "description": description,
                "mode": mode,
                "name": name,
                "parameters": parameters,
                "permissions": permissions,
                "requires_approval": requires_approval,
                "timeout_s": timeout_s,
            }
        )
        if payload_type is not UNSET:
            field_dict["payload_type"] = payload_type

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.function_parameters import FunctionParameters

        d = dict(src_dict)
        description = d.pop("description")

        mode = FunctionMode(d.pop("mode"))

        name = d.pop("name")

        parameters = FunctionParameters.from_dict(d.pop("parameters"))

        permissions = cast(list[str], d.pop("permissions"))

        requires_approval = d.pop("requires_approval")

        timeout_s = d.pop("timeout_s")

        payload_type = d.pop("payload_type", UNSET)

        function = cls(
            description=description,
            mode=mode,
            name=name,
            parameters=parameters,
            permissions=permissions,
            requires_approval=requires_approval,
            timeout_s=timeout_s,
            payload_type=payload_type,
        )

        function.additional_properties = d
        return function

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
