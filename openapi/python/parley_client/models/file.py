from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.file_kind import FileKind

T = TypeVar("T", bound="File")


@_attrs_define
class File:
    """An uploaded file (without its bytes).

    Attributes:
        content_type (str): Found from the content, not from the name.
        created_at (datetime.datetime):
        id (UUID):
        kind (FileKind): What a file is, for the model.
        name (str): The name it was uploaded with.
        size (int): Bytes.
        text_chars (int): Characters of text the model gets from it (0 for images).
    """

    content_type: str
    created_at: datetime.datetime
    id: UUID
    kind: FileKind
    name: str
    size: int
    text_chars: int
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        content_type = self.content_type

        created_at = self.created_at.isoformat()

        id = str(self.id)

        kind = self.kind.value

        name = self.name

        size = self.size

        text_chars = self.text_chars

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "content_type": content_type,
                "created_at": created_at,
                "id": id,
                "kind": kind,
                "name": name,
                "size": size,
                "text_chars": text_chars,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        content_type = d.pop("content_type")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        kind = FileKind(d.pop("kind"))

        name = d.pop("name")

        size = d.pop("size")

        text_chars = d.pop("text_chars")

        file = cls(
            content_type=content_type,
            created_at=created_at,
            id=id,
            kind=kind,
            name=name,
            size=size,
            text_chars=text_chars,
        )

        file.additional_properties = d
        return file

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
