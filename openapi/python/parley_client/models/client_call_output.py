from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define

T = TypeVar("T", bound="ClientCallOutput")


@_attrs_define
class ClientCallOutput:
    """The result as JSON: what a function that declares `returns` must send, fitting that
    schema.

        Attributes:
            output (Any):
    """

    output: Any

    def to_dict(self) -> dict[str, Any]:
        output = self.output

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "output": output,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        output = d.pop("output")

        client_call_output = cls(
            output=output,
        )

        return client_call_output
