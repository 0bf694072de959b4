from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.update_group_settings_type_0 import UpdateGroupSettingsType0


T = TypeVar("T", bound="UpdateGroup")


@_attrs_define
class UpdateGroup:
    """Changes to a group; absent fields stay as they are. The parent cannot change.

    Attributes:
        name (None | str | Unset):
        settings (None | Unset | UpdateGroupSettingsType0): Replaces the settings as a whole (a JSON object).
    """

    name: None | str | Unset = UNSET
    settings: None | Unset | UpdateGroupSettingsType0 = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.update_group_settings_type_0 import UpdateGroupSettingsType0

        name: None | str | Unset
        if isinstance(self.name, Unset):
            name = UNSET
        else:
            name = self.name

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, UpdateGroupSettingsType0):
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
        from ..models.update_group_settings_type_0 import UpdateGroupSettingsType0

        d = dict(src_dict)

        def _parse_name(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        name = _parse_name(d.pop("name", UNSET))

        def _parse_settings(data: object) -> None | Unset | UpdateGroupSettingsType0:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                settings_type_0 = UpdateGroupSettingsType0.from_dict(data)

                return settings_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UpdateGroupSettingsType0, data)

        settings = _parse_settings(d.pop("settings", UNSET))

        update_group = cls(
            name=name,
            settings=settings,
        )

        return update_group
