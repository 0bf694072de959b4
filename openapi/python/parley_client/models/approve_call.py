from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.approve_call_input_type_0 import ApproveCallInputType0


T = TypeVar("T", bound="ApproveCall")


@_attrs_define
class ApproveCall:
    """Approve a function call that waits, optionally with edited arguments.

    Attributes:
        input_ (ApproveCallInputType0 | None | Unset): The arguments to run the call with instead of the model's (a JSON
            object that
            fits the function's parameters); absent: the model's.
    """

    input_: ApproveCallInputType0 | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.approve_call_input_type_0 import ApproveCallInputType0

        input_: dict[str, Any] | None | Unset
        if isinstance(self.input_, Unset):
            input_ = UNSET
        elif isinstance(self.input_, ApproveCallInputType0):
            input_ = self.input_.to_dict()
        else:
            input_ = self.input_

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if input_ is not UNSET:
            field_dict["input"] = input_

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.approve_call_input_type_0 import ApproveCallInputType0

        d = dict(src_dict)

        def _parse_input_(data: object) -> ApproveCallInputType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                input_type_0 = ApproveCallInputType0.from_dict(data)

                return input_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ApproveCallInputType0 | None | Unset, data)

        input_ = _parse_input_(d.pop("input", UNSET))

        approve_call = cls(
            input_=input_,
        )

        return approve_call
