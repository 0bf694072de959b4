from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.budget_period import BudgetPeriod
from ..models.budget_subject import BudgetSubject

T = TypeVar("T", bound="Budget")


@_attrs_define
class Budget:
    """A spend limit, and the spending against it in the current period.

    Attributes:
        created_at (datetime.datetime):
        currency (str): The currency of the amounts (the model prices').
        id (UUID):
        limit (float): The limit, in the currency.
        limit_micros (int):
        period (BudgetPeriod): The UTC calendar period a budget counts in.
        period_ends_at (datetime.datetime): When the current period ends and the budget renews.
        period_starts_at (datetime.datetime):
        reserved (float): What model calls in flight hold (their worst case) until they settle.
        reserved_micros (int):
        spent (float): What settled model calls cost in the current period.
        spent_micros (int):
        subject (BudgetSubject): Whose spending a budget limits.
        subject_id (UUID): The user's or the group's id.
        subject_name (str): The user's or the group's name.
        updated_at (datetime.datetime):
    """

    created_at: datetime.datetime
    currency: str
    id: UUID
    limit: float
    limit_micros: int
    period: BudgetPeriod
    period_ends_at: datetime.datetime
    period_starts_at: datetime.datetime
    reserved: float
    reserved_micros: int
    spent: float
    spent_micros: int
    subject: BudgetSubject
    subject_id: UUID
    subject_name: str
    updated_at: datetime.datetime
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        currency = self.currency

        id = str(self.id)

        limit = self.limit

        limit_micros = self.limit_micros

        period = self.period.value

        period_ends_at = self.period_ends_at.isoformat()

        period_starts_at = self.period_starts_at.isoformat()

        reserved = self.reserved

        reserved_micros = self.reserved_micros

        spent = self.spent

        spent_micros = self.spent_micros

        subject = self.subject.value

        subject_id = str(self.subject_id)

        subject_name = self.subject_name

        updated_at = self.updated_at.isoformat()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "currency": currency,
                "id": id,
                "limit": limit,
                "limit_micros": limit_micros,
                "period": period,
                "period_ends_at": period_ends_at,
                "period_starts_at": period_starts_at,
                "reserved": reserved,
                "reserved_micros": reserved_micros,
                "spent": spent,
                "spent_micros": spent_micros,
                "subject": subject,
                "subject_id": subject_id,
                "subject_name": subject_name,
                "updated_at": updated_at,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        currency = d.pop("currency")

        id = UUID(d.pop("id"))

        limit = d.pop("limit")

        limit_micros = d.pop("limit_micros")

        period = BudgetPeriod(d.pop("period"))

        period_ends_at = datetime.datetime.fromisoformat(d.pop("period_ends_at"))

        period_starts_at = datetime.datetime.fromisoformat(d.pop("period_starts_at"))

        reserved = d.pop("reserved")

        reserved_micros = d.pop("reserved_micros")

        spent = d.pop("spent")

        spent_micros = d.pop("spent_micros")

        subject = BudgetSubject(d.pop("subject"))

        subject_id = UUID(d.pop("subject_id"))

        subject_name = d.pop("subject_name")

        updated_at = datetime.datetime.fromisoformat(d.pop("updated_at"))

        budget = cls(
            created_at=created_at,
            currency=currency,
            id=id,
            limit=limit,
            limit_micros=limit_micros,
            period=period,
            period_ends_at=period_ends_at,
            period_starts_at=period_starts_at,
            reserved=reserved,
            reserved_micros=reserved_micros,
            spent=spent,
            spent_micros=spent_micros,
            subject=subject,
            subject_id=subject_id,
            subject_name=subject_name,
            updated_at=updated_at,
        )

        budget.additional_properties = d
        return budget

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
