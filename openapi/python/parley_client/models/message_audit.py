from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="MessageAudit")


@_attrs_define
class MessageAudit:
    """What a blocking or redacting module kept of one message.

    Attributes:
        created_at (datetime.datetime):
        id (UUID):
        message_id (UUID):
        original_content (str): The text before the module acted: a blocked message's original, or the redacted
            text of a rewritten one (a redactor never keeps the values it removed).
        patterns_matched (Any): Which patterns matched (names, never the matched values).
        redaction_module (str):
        redaction_reason (str):
        seq (int): The message's place in the session.
    """

    created_at: datetime.datetime
    id: UUID
    message_id: UUID
    original_content: str
    patterns_matched: Any
    redaction_module: str
    redaction_reason: str
    seq: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        id = str(self.id)

        message_id = str(self.message_id)

        original_content = self.original_content

        patterns_matched = self.patterns_matched

        redaction_module = self.redaction_module

        redaction_reason = self.redaction_reason

        seq = self.seq

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "id": id,
                "message_id": message_id,
                "original_content": original_content,
                "patterns_matched": patterns_matched,
                "redaction_module": redaction_module,
                "redaction_reason": redaction_reason,
                "seq": seq,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        message_id = UUID(d.pop("message_id"))

        original_content = d.pop("original_content")

        patterns_matched = d.pop("patterns_matched")

        redaction_module = d.pop("redaction_module")

        redaction_reason = d.pop("redaction_reason")

        seq = d.pop("seq")

        message_audit = cls(
            created_at=created_at,
            id=id,
            message_id=message_id,
            original_content=original_content,
            patterns_matched=patterns_matched,
            redaction_module=redaction_module,
            redaction_reason=redaction_reason,
            seq=seq,
        )

        message_audit.additional_properties = d
        return message_audit

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
