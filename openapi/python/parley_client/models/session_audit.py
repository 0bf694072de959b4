from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.extraction import Extraction
    from ..models.message_audit import MessageAudit
    from ..models.module_event import ModuleEvent


T = TypeVar("T", bound="SessionAudit")


@_attrs_define
class SessionAudit:
    """Everything modules recorded about one session, oldest first.

    Attributes:
        audits (list[MessageAudit]): By message `seq`.
        extractions (list[Extraction]):
        module_events (list[ModuleEvent]):
        session_id (UUID):
    """

    audits: list[MessageAudit]
    extractions: list[Extraction]
    module_events: list[ModuleEvent]
    session_id: UUID
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        audits = []
        for audits_item_data in self.audits:
            audits_item = audits_item_data.to_dict()
            audits.append(audits_item)

        extractions = []
        for extractions_item_data in self.extractions:
            extractions_item = extractions_item_data.to_dict()
            extractions.append(extractions_item)

        module_events = []
        for module_events_item_data in self.module_events:
            module_events_item = module_events_item_data.to_dict()
            module_events.append(module_events_item)

        session_id = str(self.session_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "audits": audits,
                "extractions": extractions,
                "module_events": module_events,
                "session_id": session_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.extraction import Extraction
        from ..models.message_audit import MessageAudit
        from ..models.module_event import ModuleEvent

        d = dict(src_dict)
        audits = []
        _audits = d.pop("audits")
        for audits_item_data in _audits:
            audits_item = MessageAudit.from_dict(audits_item_data)

            audits.append(audits_item)

        extractions = []
        _extractions = d.pop("extractions")
        for extractions_item_data in _extractions:
            extractions_item = Extraction.from_dict(extractions_item_data)

            extractions.append(extractions_item)

        module_events = []
        _module_events = d.pop("module_events")
        for module_events_item_data in _module_events:
            module_events_item = ModuleEvent.from_dict(module_events_item_data)

            module_events.append(module_events_item)

        session_id = UUID(d.pop("session_id"))

        session_audit = cls(
            audits=audits,
            extractions=extractions,
            module_events=module_events,
            session_id=session_id,
        )

        session_audit.additional_properties = d
        return session_audit

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
