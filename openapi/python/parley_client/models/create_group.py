from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.config_overrides import ConfigOverrides


T = TypeVar("T", bound="CreateGroup")


@_attrs_define
class CreateGroup:
    """A new group.

    Attributes:
        name (str):
        parent_id (None | Unset | UUID): The parent group; absent for a root group.
        settings (ConfigOverrides | None | Unset): Options over the definitions of the tools under the group (default:
            none).
    """

    name: str
    parent_id: None | Unset | UUID = UNSET
    settings: ConfigOverrides | None | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.config_overrides import ConfigOverrides

        name = self.name

        parent_id: None | str | Unset
        if isinstance(self.parent_id, Unset):
            parent_id = UNSET
        elif isinstance(self.parent_id, UUID):
            parent_id = str(self.parent_id)
        else:
            parent_id = self.parent_id

        settings: dict[str, Any] | None | Unset
        if isinstance(self.settings, Unset):
            settings = UNSET
        elif isinstance(self.settings, ConfigOverrides):
            settings = self.settings.to_dict()
        else:
            settings = self.settings

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "name": name,
            }
        )
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id
        if settings is not UNSET:
            field_dict["settings"] = settings

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.config_overrides import ConfigOverrides

        d = dict(src_dict)
        name = d.pop("name")

        def _parse_parent_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_id_type_0 = UUID(data)

                return parent_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_id = _parse_parent_id(d.pop("parent_id", UNSET))

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

        create_group = cls(
            name=name,
            parent_id=parent_id,
            settings=settings,
        )

        return create_group
