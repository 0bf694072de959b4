from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define

from ..models.budget_period import BudgetPeriod
from ..models.budget_subject import BudgetSubject

T = TypeVar("T", bound="CreateBudget")


@_attrs_define
class CreateBudget:
    """A new budget.

    Attributes:
        limit (float): The limit in the currency (US dollars), to the micro-unit; 0 refuses every turn.
        period (BudgetPeriod): The UTC calendar period a budget counts in.
        subject (BudgetSubject): Whose spending a budget limits.
        subject_id (UUID): The user's or the group's id (422 `user_not_found` / `group_not_found`).
    """

    limit: float
    period: BudgetPeriod
    subject: BudgetSubject
    subject_id: UUID

    def to_dict(self) -> dict[str, Any]:
        limit = self.limit

        period = self.period.value

        subject = self.subject.value

        subject_id = str(self.subject_id)

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "limit": limit,
                "period": period,
                "subject": subject,
                "subject_id": subject_id,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        limit = d.pop("limit")

        period = BudgetPeriod(d.pop("period"))

        subject = BudgetSubject(d.pop("subject"))

        subject_id = UUID(d.pop("subject_id"))

        create_budget = cls(
            limit=limit,
            period=period,
            subject=subject,
            subject_id=subject_id,
        )

        return create_budget
