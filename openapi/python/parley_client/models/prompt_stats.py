from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.state_count import StateCount
    from ..models.stuck_prompt import StuckPrompt


T = TypeVar("T", bound="PromptStats")


@_attrs_define
class PromptStats:
    """The prompts' state distribution and the stuck ones.

    Attributes:
        by_state (list[StateCount]): Every prompt state, zeros included.
        in_flight (list[StuckPrompt]): The prompts in flight, oldest first (at most 50), stuck or not.
        in_flight_count (int): How many prompts are in flight (created, in progress or waiting for tools).
        stuck (list[StuckPrompt]): The oldest stuck prompts, oldest first (at most 50).
        stuck_after_s (int): The threshold used: unfinished prompts created longer ago than this are stuck.
        stuck_count (int): How many prompts are stuck.
    """

    by_state: list[StateCount]
    in_flight: list[StuckPrompt]
    in_flight_count: int
    stuck: list[StuckPrompt]
    stuck_after_s: int
    stuck_count: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_state = []
        for by_state_item_data in self.by_state:
            by_state_item = by_state_item_data.to_dict()
            by_state.append(by_state_item)

        in_flight = []
        for in_flight_item_data in self.in_flight:
            in_flight_item = in_flight_item_data.to_dict()
            in_flight.append(in_flight_item)

        in_flight_count = self.in_flight_count

        stuck = []
        for stuck_item_data in self.stuck:
            stuck_item = stuck_item_data.to_dict()
            stuck.append(stuck_item)

        stuck_after_s = self.stuck_after_s

        stuck_count = self.stuck_count

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_state": by_state,
                "in_flight": in_flight,
                "in_flight_count": in_flight_count,
                "stuck": stuck,
                "stuck_after_s": stuck_after_s,
                "stuck_count": stuck_count,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.state_count import StateCount
        from ..models.stuck_prompt import StuckPrompt

        d = dict(src_dict)
        by_state = []
        _by_state = d.pop("by_state")
        for by_state_item_data in _by_state:
            by_state_item = StateCount.from_dict(by_state_item_data)

            by_state.append(by_state_item)

        in_flight = []
        _in_flight = d.pop("in_flight")
        for in_flight_item_data in _in_flight:
            in_flight_item = StuckPrompt.from_dict(in_flight_item_data)

            in_flight.append(in_flight_item)

        in_flight_count = d.pop("in_flight_count")

        stuck = []
        _stuck = d.pop("stuck")
        for stuck_item_data in _stuck:
            stuck_item = StuckPrompt.from_dict(stuck_item_data)

            stuck.append(stuck_item)

        stuck_after_s = d.pop("stuck_after_s")

        stuck_count = d.pop("stuck_count")

        prompt_stats = cls(
            by_state=by_state,
            in_flight=in_flight,
            in_flight_count=in_flight_count,
            stuck=stuck,
            stuck_after_s=stuck_after_s,
            stuck_count=stuck_count,
        )

        prompt_stats.additional_properties = d
        return prompt_stats

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
