from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.config_overrides import ConfigOverrides


T = TypeVar("T", bound="CreateAssignment")


@_attrs_define
class CreateAssignment:
    """A new assignment.

    Attributes:
        class_id (UUID):
        title (str):
        tool_id (UUID):
        available_at (datetime.datetime | None | Unset):
        closes_at (datetime.datetime | None | Unset): Must be later than `available_at` when both are set.
        config (ConfigOverrides | None | Unset): Overrides of the tool's definition (default: none).
        instructions (None | str | Unset):  Default: ''.
    """

    class_id: UUID
    title: str
    tool_id: UUID
    available_at: datetime.datetime | None | Unset = UNSET
    closes_at: datetime.datetime | None | Unset = UNSET
    config: ConfigOverrides | None | Unset = UNSET
    instructions: None | str | Unset = ""

    def to_dict(self) -> dict[str, Any]:
        from ..models.config_overrides import ConfigOverrides

        class_id = str(self.class_id)

        title = self.title

        tool_id = str(self.tool_id)

        available_at: None | str | Unset
        if isinstance(self.available_at, Unset):
            available_at = UNSET
        elif isinstance(self.available_at, datetime.datetime):
            available_at = self.available_at.isoformat()
        else:
            available_at = self.available_at

        closes_at: None | str | Unset
        if isinstance(self.closes_at, Unset):
            closes_at = UNSET
        elif isinstance(self.closes_at, datetime.datetime):
            closes_at = self.closes_at.isoformat()
        else:
            closes_at = self.closes_at

        config: dict[str, Any] | None | Unset
        if isinstance(self.config, Unset):
            config = UNSET
        elif isinstance(self.config, ConfigOverrides):
            config = self.config.to_dict()
        else:
            config = self.config

        instructions: None | str | Unset
        if isinstance(self.instructions, Unset):
            instructions = UNSET
        else:
            instructions = self.instructions

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "class_id": class_id,
                "title": title,
                "tool_id": tool_id,
            }
        )
        if available_at is not UNSET:
            field_dict["available_at"] = available_at
        if closes_at is not UNSET:
            field_dict["closes_at"] = closes_at
        if config is not UNSET:
            field_dict["config"] = config
        if instructions is not UNSET:
            field_dict["instructions"] = instructions

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)
        class_id = UUID(d.pop("class_id"))

        title = d.pop("title")

        tool_id = UUID(d.pop("tool_id"))

        def _parse_available_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                available_at_type_0 = datetime.datetime.fromisoformat(data)

                return available_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        available_at = _parse_available_at(d.pop("available_at", UNSET))

        def _parse_closes_at(data: object) -> datetime.datetime | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                closes_at_type_0 = datetime.datetime.fromisoformat(data)

                return closes_at_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(datetime.datetime | None | Unset, data)

        closes_at = _parse_closes_at(d.pop("closes_at", UNSET))

        def _parse_config(data: object) -> ConfigOverrides | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                config_type_1 = ConfigOverrides.from_dict(data)

                return config_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfigOverrides | None | Unset, data)

        config = _parse_config(d.pop("config", UNSET))

        def _parse_instructions(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        instructions = _parse_instructions(d.pop("instructions", UNSET))

        create_assignment = cls(
            class_id=class_id,
            title=title,
            tool_id=tool_id,
            available_at=available_at,
            closes_at=closes_at,
            config=config,
            instructions=instructions,
        )

        return create_assignment
