from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="RouteDecision")


@_attrs_define
class RouteDecision:
    """How the skill router decided a turn.

    `confidence`, `cost` and `selection_score` are those of the best-scoring skill (the
    winner, or the one that came closest); all three are 0 when no skill's pattern
    matched the message.

        Attributes:
            confidence (float): The skill's confidence, 0–1: matched pattern groups, amount-and-unit and
                context bonuses.
            cost (float): The skill's cost estimate for this message (at least 0.01).
            intent (str): What the message asked for: `timer_set`, `timer_pause`, `timer_resume`,
                `timer_cancel`, `timer_remaining`, `math`, or `general` (left to the model).
            selection_score (float): `confidence / cost`; a skill answers when it is at least `threshold`.
            threshold (float): The selection score a skill needs to answer.
            skill_won (str | Unset): The skill that answered (`TimerSkill`, `MathSkill`); absent when the model did.
    """

    confidence: float
    cost: float
    intent: str
    selection_score: float
    threshold: float
    skill_won: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        confidence = self.confidence

        cost = self.cost

        intent = self.intent

        selection_score = self.selection_score

        threshold = self.threshold

        skill_won = self.skill_won

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "confidence": confidence,
                "cost": cost,
                "intent": intent,
                "selection_score": selection_score,
                "threshold": threshold,
            }
        )
        if skill_won is not UNSET:
            field_dict["skill_won"] = skill_won

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        confidence = d.pop("confidence")

        cost = d.pop("cost")

        intent = d.pop("intent")

        selection_score = d.pop("selection_score")

        threshold = d.pop("threshold")

        skill_won = d.pop("skill_won", UNSET)

        route_decision = cls(
            confidence=confidence,
            cost=cost,
            intent=intent,
            selection_score=selection_score,
            threshold=threshold,
            skill_won=skill_won,
        )

        route_decision.additional_properties = d
        return route_decision

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
