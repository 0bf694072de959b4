from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.compaction import Compaction
from ..types import UNSET, Unset

T = TypeVar("T", bound="HistorySettings")


@_attrs_define
class HistorySettings:
    """How a tool's long conversations keep their history (`ToolDefinition::history`).

    Attributes:
        compaction (Compaction | None | Unset): `off` (the default): what falls out of the window is gone for the model;
            `summarize`: it is summarized, and the summary heads the history.
        summary_model (None | str | Unset): The model that writes the summary (one the deployment serves); absent: the
            turn's own model.
    """

    compaction: Compaction | None | Unset = UNSET
    summary_model: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        compaction: None | str | Unset
        if isinstance(self.compaction, Unset):
            compaction = UNSET
        elif isinstance(self.compaction, Compaction):
            compaction = self.compaction.value
        else:
            compaction = self.compaction

        summary_model: None | str | Unset
        if isinstance(self.summary_model, Unset):
            summary_model = UNSET
        else:
            summary_model = self.summary_model

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if compaction is not UNSET:
            field_dict["compaction"] = compaction
        if summary_model is not UNSET:
            field_dict["summary_model"] = summary_model

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)

        def _parse_compaction(data: object) -> Compaction | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                compaction_type_1 = Compaction(data)

                return compaction_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(Compaction | None | Unset, data)

        compaction = _parse_compaction(d.pop("compaction", UNSET))

        def _parse_summary_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        summary_model = _parse_summary_model(d.pop("summary_model", UNSET))

        history_settings = cls(
            compaction=compaction,
            summary_model=summary_model,
        )

        return history_settings
