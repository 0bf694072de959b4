from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.module_outcome import ModuleOutcome
from ..types import UNSET, Unset

T = TypeVar("T", bound="BlockEvent")


@_attrs_define
class BlockEvent:
    """One recorded run of a module at a hook, with its session.

    Attributes:
        created_at (datetime.datetime):
        duration_ms (int):
        hook (str):
        id (UUID):
        module (str):
        outcome (ModuleOutcome): What a module decided at one hook run.
        category (str | Unset): The category the module gave; absent when it gave none.
        prompt_id (UUID | Unset):
        session_id (UUID | Unset): The prompt's session, while the prompt exists.
    """

    created_at: datetime.datetime
    duration_ms: int
    hook: str
    id: UUID
    module: str
    outcome: ModuleOutcome
    category: str | Unset = UNSET
    prompt_id: UUID | Unset = UNSET
    session_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        duration_ms = self.duration_ms

        hook = self.hook

        id = str(self.id)

        module = self.module

        outcome = self.outcome.value

        category = self.category

        prompt_id: str | Unset = UNSET
        if not isinstance(self.prompt_id, Unset):
            prompt_id = str(self.prompt_id)

        session_id: str | Unset = UNSET
        if not isinstance(self.session_id, Unset):
            session_id = str(self.session_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "duration_ms": duration_ms,
                "hook": hook,
                "id": id,
                "module": module,
                "outcome": outcome,
            }
        )
        if category is not UNSET:
            field_dict["category"] = category
        if prompt_id is not UNSET:
            field_dict["prompt_id"] = prompt_id
        if session_id is not UNSET:
            field_dict["session_id"] = session_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        duration_ms = d.pop("duration_ms")

        hook = d.pop("hook")

        id = UUID(d.pop("id"))

        module = d.pop("module")

        outcome = ModuleOutcome(d.pop("outcome"))

        category = d.pop("category", UNSET)

        _prompt_id = d.pop("prompt_id", UNSET)
        prompt_id: UUID | Unset
        if isinstance(_prompt_id, Unset):
            prompt_id = UNSET
        else:
            prompt_id = UUID(_prompt_id)

        _session_id = d.pop("session_id", UNSET)
        session_id: UUID | Unset
        if isinstance(_session_id, Unset):
            session_id = UNSET
        else:
            session_id = UUID(_session_id)

        block_event = cls(
            created_at=created_at,
            duration_ms=duration_ms,
            hook=hook,
            id=id,
            module=module,
            outcome=outcome,
            category=category,
            prompt_id=prompt_id,
            session_id=session_id,
        )

        block_event.additional_properties = d
        return block_event

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
