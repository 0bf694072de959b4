from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.hook import Hook
from ..types import UNSET, Unset

T = TypeVar("T", bound="RequestContext")


@_attrs_define
class RequestContext:
    """Which hook runs, for which request, when.

    Attributes:
        hook (Hook): A point in a session's life where modules run.
        request_id (UUID): Unique per hook run (for tracing and idempotency on the receiver's side).
        timestamp (datetime.datetime):
        prompt_id (UUID | Unset): The generation this run belongs to (chat hooks).
    """

    hook: Hook
    request_id: UUID
    timestamp: datetime.datetime
    prompt_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        hook = self.hook.value

        request_id = str(self.request_id)

        timestamp = self.timestamp.isoformat()

        prompt_id: str | Unset = UNSET
        if not isinstance(self.prompt_id, Unset):
            prompt_id = str(self.prompt_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "hook": hook,
                "request_id": request_id,
                "timestamp": timestamp,
            }
        )
        if prompt_id is not UNSET:
            field_dict["prompt_id"] = prompt_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        hook = Hook(d.pop("hook"))

        request_id = UUID(d.pop("request_id"))

        timestamp = datetime.datetime.fromisoformat(d.pop("timestamp"))

        _prompt_id = d.pop("prompt_id", UNSET)
        prompt_id: UUID | Unset
        if isinstance(_prompt_id, Unset):
            prompt_id = UNSET
        else:
            prompt_id = UUID(_prompt_id)

        request_context = cls(
            hook=hook,
            request_id=request_id,
            timestamp=timestamp,
            prompt_id=prompt_id,
        )

        request_context.additional_properties = d
        return request_context

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
