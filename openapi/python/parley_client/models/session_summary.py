from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="SessionSummary")


@_attrs_define
class SessionSummary:
    """What a long conversation's model still sees of its history: the history window
    moves in steps once the conversation outgrows the model's context, and for a tool that
    summarizes (`history.compaction = "summarize"`) what a step left out is summarized and
    heads the history the model reads.

        Attributes:
            steps (int): How many times the window stepped (0: the conversation still fits whole).
            model (str | Unset): The model that wrote the summary.
            summary (str | Unset): The summary of what it leaves out (absent: the tool does not summarize).
            through_message_id (UUID | Unset): The newest message the window leaves out (the model reads what follows it).
            updated_at (datetime.datetime | Unset): When the window last stepped.
    """

    steps: int
    model: str | Unset = UNSET
    summary: str | Unset = UNSET
    through_message_id: UUID | Unset = UNSET
    updated_at: datetime.datetime | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        steps = self.steps

        model = self.model

        summary = self.summary

        through_message_id: str | Unset = UNSET
        if not isinstance(self.through_message_id, Unset):
            through_message_id = str(self.through_message_id)

        updated_at: str | Unset = UNSET
        if not isinstance(self.updated_at, Unset):
            updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "steps": steps,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if summary is not UNSET:
            field_dict["summary"] = summary
        if through_message_id is not UNSET:
            field_dict["through_message_id"] = through_message_id
        if updated_at is not UNSET:
            field_dict["updated_at"] = updated_at

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        steps = d.pop("steps")

        model = d.pop("model", UNSET)

        summary = d.pop("summary", UNSET)

        _through_message_id = d.pop("through_message_id", UNSET)
        through_message_id: UUID | Unset
        if isinstance(_through_message_id, Unset):
            through_message_id = UNSET
        else:
            through_message_id = UUID(_through_message_id)

        _updated_at = d.pop("updated_at", UNSET)
        updated_at: datetime.datetime | Unset
        if isinstance(_updated_at, Unset):
            updated_at = UNSET
        else:
            updated_at = datetime.datetime.fromisoformat(_updated_at)

        session_summary = cls(
            steps=steps,
            model=model,
            summary=summary,
            through_message_id=through_message_id,
            updated_at=updated_at,
        )

        session_summary.additional_properties = d
        return session_summary

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
