from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="HookAudit")


@_attrs_define
class HookAudit:
    """The audit record of a change: what the message was, who changed it and why. A
    redactor stores the redacted text here, never the values it removed.

        Attributes:
            original_content (str):
            redaction_reason (str):
            patterns_matched (list[str] | Unset):
    """

    original_content: str
    redaction_reason: str
    patterns_matched: list[str] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        original_content = self.original_content

        redaction_reason = self.redaction_reason

        patterns_matched: list[str] | Unset = UNSET
        if not isinstance(self.patterns_matched, Unset):
            patterns_matched = self.patterns_matched

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "original_content": original_content,
                "redaction_reason": redaction_reason,
            }
        )
        if patterns_matched is not UNSET:
            field_dict["patterns_matched"] = patterns_matched

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        original_content = d.pop("original_content")

        redaction_reason = d.pop("redaction_reason")

        patterns_matched = cast(list[str], d.pop("patterns_matched", UNSET))

        hook_audit = cls(
            original_content=original_content,
            redaction_reason=redaction_reason,
            patterns_matched=patterns_matched,
        )

        hook_audit.additional_properties = d
        return hook_audit

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
