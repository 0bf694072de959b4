from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.config_overrides import ConfigOverrides


T = TypeVar("T", bound="UpdateGroup")


@_attrs_define
class UpdateGroup:
    """Changes to a group; absent fields stay as they are. The parent cannot change.

    Attributes:
        name (None | str | Unset):
        settings (ConfigOverrides | None | Unset): Replaces the settings as a whole.
    """

    name: None | str | Unset = UNSET
    settings: ConfigOverrides | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.config_overrides import ConfigOverrides

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, ConfigOverrides):
            settings = self.settings.to_dict()
        else:
            settings = self.settings

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if name is not UNSET:
            field_dict["name"] = name
        if settings is not UNSET:
            field_dict["settings"] = settings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_settings(data: object) -> ConfigOverrides | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_type_1 = ConfigOverrides.from_dict(data)

                return settings_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ConfigOverrides | None | Unset, data)

        settings = _parse_settings(d.pop("settings", UNSET))

        update_group = cls(
            name=name,
            settings=settings,
        )

        return update_group
