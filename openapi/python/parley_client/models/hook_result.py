from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.hook_action import HookAction
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.hook_audit import HookAudit
    from ..models.hook_extraction import HookExtraction
    from ..models.modifications import Modifications


T = TypeVar("T", bound="HookResult")


@_attrs_define
class HookResult:
    """What a module decided. Every field but `action` is optional; `{"action": "continue"}`
    (or `{}`) changes nothing.

        Attributes:
            action (HookAction | Unset): Continue the turn, or stop it with a direct response. Default: HookAction.CONTINUE.
            audit (HookAudit | Unset): The audit record of a change: what the message was, who changed it and why. A
                redactor stores the redacted text here, never the values it removed.
            block_category (str | Unset): A short category for what the module did: a block's (e.g. `self_harm`, default
                `policy`), shown in `complete` and the block metrics, or a modification's (e.g.
                `pii`), shown in the block metrics.
            block_reason (str | Unset): Why the message was blocked, for the audit trail (never shown to the user).
            direct_response (str | Unset): What the user is told instead of a model answer when the module blocks.
            extractions (list[HookExtraction] | Unset): Structured findings to store (`extractions`).
            modifications (Modifications | Unset): Changes a module asks for.
    """

    action: HookAction | Unset = HookAction.CONTINUE
    audit: HookAudit | Unset = UNSET
    block_category: str | Unset = UNSET
    block_reason: str | Unset = UNSET
    direct_response: str | Unset = UNSET
    extractions: list[HookExtraction] | Unset = UNSET
    modifications: Modifications | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        action: str | Unset = UNSET
        if not isinstance(self.action, Unset):
            action = self.action.value

        audit: dict[str, Any] | Unset = UNSET
        if not isinstance(self.audit, Unset):
            audit = self.audit.to_dict()

        block_category = self.block_category

        block_reason = self.block_reason

        direct_response = self.direct_response

        extractions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.extractions, Unset):
            extractions = []
            for extractions_item_data in self.extractions:
                extractions_item = extractions_item_data.to_dict()
                extractions.append(extractions_item)

        modifications: dict[str, Any] | Unset = UNSET
        if not isinstance(self.modifications, Unset):
            modifications = self.modifications.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update({})
        if action is not UNSET:
            field_dict["action"] = action
        if audit is not UNSET:
            field_dict["audit"] = audit
        if block_category is not UNSET:
            field_dict["block_category"] = block_category
        if block_reason is not UNSET:
            field_dict["block_reason"] = block_reason
        if direct_response is not UNSET:
            field_dict["direct_response"] = direct_response
        if extractions is not UNSET:
            field_dict["extractions"] = extractions
        if modifications is not UNSET:
            field_dict["modifications"] = modifications

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.hook_audit import HookAudit
        from ..models.hook_extraction import HookExtraction
        from ..models.modifications import Modifications

        d = dict(src_dict)
        _action = d.pop("action", UNSET)
        action: HookAction | Unset
        if isinstance(_action, Unset):
            action = UNSET
        else:
            action = HookAction(_action)

        _audit = d.pop("audit", UNSET)
        audit: HookAudit | Unset
        if isinstance(_audit, Unset):
            audit = UNSET
        else:
            audit = HookAudit.from_dict(_audit)

        block_category = d.pop("block_category", UNSET)

        block_reason = d.pop("block_reason", UNSET)

        direct_response = d.pop("direct_response", UNSET)

        _extractions = d.pop("extractions", UNSET)
        extractions: list[HookExtraction] | Unset = UNSET
        if _extractions is not UNSET:
            extractions = []
            for extractions_item_data in _extractions:
                extractions_item = HookExtraction.from_dict(extractions_item_data)

                extractions.append(extractions_item)

        _modifications = d.pop("modifications", UNSET)
        modifications: Modifications | Unset
        if isinstance(_modifications, Unset):
            modifications = UNSET
        else:
            modifications = Modifications.from_dict(_modifications)

        hook_result = cls(
            action=action,
            audit=audit,
            block_category=block_category,
            block_reason=block_reason,
            direct_response=direct_response,
            extractions=extractions,
            modifications=modifications,
        )

        hook_result.additional_properties = d
        return hook_result

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
