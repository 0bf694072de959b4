from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.feedback_by_model import FeedbackByModel
    from ..models.feedback_by_rating import FeedbackByRating
    from ..models.feedback_by_tool import FeedbackByTool


T = TypeVar("T", bound="FeedbackMetrics")


@_attrs_define
class FeedbackMetrics:
    """The feedback of a window, counted.

    Attributes:
        by_model (list[FeedbackByModel]): Every model with feedback in the window, by name (answers no model wrote
            first).
        by_rating (list[FeedbackByRating]): Both ratings, zeros included.
        by_tool (list[FeedbackByTool]): Every tool with feedback in the window, by name.
    """

    by_model: list[FeedbackByModel]
    by_rating: list[FeedbackByRating]
    by_tool: list[FeedbackByTool]
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        by_model = []
        for by_model_item_data in self.by_model:
            by_model_item = by_model_item_data.to_dict()
            by_model.append(by_model_item)

        by_rating = []
        for by_rating_item_data in self.by_rating:
            by_rating_item = by_rating_item_data.to_dict()
            by_rating.append(by_rating_item)

        by_tool = []
        for by_tool_item_data in self.by_tool:
            by_tool_item = by_tool_item_data.to_dict()
            by_tool.append(by_tool_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "by_model": by_model,
                "by_rating": by_rating,
                "by_tool": by_tool,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.feedback_by_model import FeedbackByModel
        from ..models.feedback_by_rating import FeedbackByRating
        from ..models.feedback_by_tool import FeedbackByTool

        d = dict(src_dict)
        by_model = []
        _by_model = d.pop("by_model")
        for by_model_item_data in _by_model:
            by_model_item = FeedbackByModel.from_dict(by_model_item_data)

            by_model.append(by_model_item)

        by_rating = []
        _by_rating = d.pop("by_rating")
        for by_rating_item_data in _by_rating:
            by_rating_item = FeedbackByRating.from_dict(by_rating_item_data)

            by_rating.append(by_rating_item)

        by_tool = []
        _by_tool = d.pop("by_tool")
        for by_tool_item_data in _by_tool:
            by_tool_item = FeedbackByTool.from_dict(by_tool_item_data)

            by_tool.append(by_tool_item)

        feedback_metrics = cls(
            by_model=by_model,
            by_rating=by_rating,
            by_tool=by_tool,
        )

        feedback_metrics.additional_properties = d
        return feedback_metrics

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
