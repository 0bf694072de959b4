from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="Problem")


@_attrs_define
class Problem:
    """RFC 9457 problem details, with Parley's stable `code` and the request id.

    Attributes:
        code (str): A stable, machine-readable error code (snake_case): one of the `ErrorCode`
            schema's values, which lists each with its status. Typed as a string so that a
            client reads codes added after it was built.
        detail (str): What went wrong with this request, for a person to read.
        request_id (str): The request id, also sent as the `X-Request-Id` response header.
        status (int): The HTTP status code.
        title (str): A short, human-readable summary of the problem type.
        type_ (str): A URI reference naming the problem type (`about:blank` or a Parley problem URI).
        instance (str | Unset): The resource this occurrence concerns, when there is one (e.g. the prompt of a
            failed turn, which can be resumed).
        param (str | Unset): The request body's field the problem concerns, as a path (`input[1].role`),
            when there is one.
    """

    code: str
    detail: str
    request_id: str
    status: int
    title: str
    type_: str
    instance: str | Unset = UNSET
    param: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        code = self.code

        detail = self.detail

        request_id = self.request_id

        status = self.status

        title = self.title

        type_ = self.type_

        instance = self.instance

        param = self.param

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "code": code,
                "detail": detail,
                "request_id": request_id,
                "status": status,
                "title": title,
                "type": type_,
            }
        )
        if instance is not UNSET:
            field_dict["instance"] = instance
        if param is not UNSET:
            field_dict["param"] = param

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        code = d.pop("code")

        detail = d.pop("detail")

        request_id = d.pop("request_id")

        status = d.pop("status")

        title = d.pop("title")

        type_ = d.pop("type")

        instance = d.pop("instance", UNSET)

        param = d.pop("param", UNSET)

        problem = cls(
            code=code,
            detail=detail,
            request_id=request_id,
            status=status,
            title=title,
            type_=type_,
            instance=instance,
            param=param,
        )

        problem.additional_properties = d
        return problem

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
