from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

T = TypeVar("T", bound="OpenAiModel")


@_attrs_define
class OpenAiModel:
    """One model (a chat tool or a model) the caller may name.

    Attributes:
        created (int): When it was created (Unix seconds).
        id (str): `tool:<tool id>` for a chat tool, else a Parley model id.
        name (str): A name to show: the tool's name, or the model id.
        object_ (str): Always `model`.
        owned_by (str): Always `parley`.
    """

    created: int
    id: str
    name: str
    object_: str
    owned_by: str
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created = self.created

        id = self.id

        name = self.name

        object_ = self.object_

        owned_by = self.owned_by

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created": created,
                "id": id,
                "name": name,
                "object": object_,
                "owned_by": owned_by,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created = d.pop("created")

        id = d.pop("id")

        name = d.pop("name")

        object_ = d.pop("object")

        owned_by = d.pop("owned_by")

        open_ai_model = cls(
            created=created,
            id=id,
            name=name,
            object_=object_,
            owned_by=owned_by,
        )

        open_ai_model.additional_properties = d
        return open_ai_model

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
