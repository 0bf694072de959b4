from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.config_overrides import ConfigOverrides


T = TypeVar("T", bound="UpdateAssignment")


@_attrs_define
class UpdateAssignment:
    """Changes to an assignment; absent fields stay as they are. The class and the tool
    cannot change.

        Attributes:
            available_at (datetime.datetime | None | Unset): `null` clears it.
            closes_at (datetime.datetime | None | Unset): `null` clears it.
            config (ConfigOverrides | None | Unset): Replaces the config as a whole.
            instructions (None | str | Unset):
            title (None | str | Unset):
    """

    available_at: datetime.datetime | None | Unset = UNSET
    closes_at: datetime.datetime | None | Unset = UNSET
    config: ConfigOverrides | None | Unset = UNSET
    instructions: None | str | Unset = UNSET
    title: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.config_overrides import ConfigOverrides

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

        title: None | str | Unset
        if isinstance(self.title, Unset):
            title = UNSET
        else:
            title = self.title

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if available_at is not UNSET:
            field_dict["available_at"] = available_at
        if closes_at is not UNSET:
            field_dict["closes_at"] = closes_at
        if config is not UNSET:
            field_dict["config"] = config
        if instructions is not UNSET:
            field_dict["instructions"] = instructions
        if title is not UNSET:
            field_dict["title"] = title

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)

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

        def _parse_title(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        title = _parse_title(d.pop("title", UNSET))

        update_assignment = cls(
            available_at=available_at,
            closes_at=closes_at,
            config=config,
            instructions=instructions,
            title=title,
        )

        return update_assignment
