from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

T = TypeVar("T", bound="ResponseInputContentPart")


@_attrs_define
class ResponseInputContentPart:
    """A content part of an input message item.

    Attributes:
        type_ (str): `input_text`, `output_text`, `input_image` or `input_file` (others are refused).
            The last message's images and files are its attachments; an earlier message's
            are left out of the imported history.
        detail (None | str | Unset): `input_image`: accepted; the provider's default applies.
        file_data (None | str | Unset): `input_file`: a `data:` URL, or the file's bytes in base64.
        file_id (None | str | Unset): `input_image`, `input_file`: a file of the caller's (`POST /v1/files`): its id,
            or `file-<id>`.
        file_url (None | str | Unset): `input_file`: an `http(s)` URL Parley fetches.
        filename (None | str | Unset): `input_file`: its name.
        image_url (None | str | Unset): `input_image`: a `data:` URL or an `http(s)` URL Parley fetches.
        text (None | str | Unset):
    """

    type_: str
    detail: None | str | Unset = UNSET
    file_data: None | str | Unset = UNSET
    file_id: None | str | Unset = UNSET
    file_url: None | str | Unset = UNSET
    filename: None | str | Unset = UNSET
    image_url: None | str | Unset = UNSET
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        type_ = self.type_

        detail: None | str | Unset
        if isinstance(self.detail, Unset):
            detail = UNSET
        else:
            detail = self.detail

        file_data: None | str | Unset
        if isinstance(self.file_data, Unset):
            file_data = UNSET
        else:
            file_data = self.file_data

        file_id: None | str | Unset
        if isinstance(self.file_id, Unset):
            file_id = UNSET
        else:
            file_id = self.file_id

        file_url: None | str | Unset
        if isinstance(self.file_url, Unset):
            file_url = UNSET
        else:
            file_url = self.file_url

        filename: None | str | Unset
        if isinstance(self.filename, Unset):
            filename = UNSET
        else:
            filename = self.filename

        image_url: None | str | Unset
        if isinstance(self.image_url, Unset):
            image_url = UNSET
        else:
            image_url = self.image_url

        text: None | str | Unset
        if isinstance(self.text, Unset):
            text = UNSET
        else:
            text = self.text

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "type": type_,
            }
        )
        if detail is not UNSET:
            field_dict["detail"] = detail
        if file_data is not UNSET:
            field_dict["file_data"] = file_data
        if file_id is not UNSET:
            field_dict["file_id"] = file_id
        if file_url is not UNSET:
            field_dict["file_url"] = file_url
        if filename is not UNSET:
            field_dict["filename"] = filename
        if image_url is not UNSET:
            field_dict["image_url"] = image_url
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_detail(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        detail = _parse_detail(d.pop("detail", UNSET))

        def _parse_file_data(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_data = _parse_file_data(d.pop("file_data", UNSET))

        def _parse_file_id(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_id = _parse_file_id(d.pop("file_id", UNSET))

        def _parse_file_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        file_url = _parse_file_url(d.pop("file_url", UNSET))

        def _parse_filename(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        filename = _parse_filename(d.pop("filename", UNSET))

        def _parse_image_url(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        image_url = _parse_image_url(d.pop("image_url", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        response_input_content_part = cls(
            type_=type_,
            detail=detail,
            file_data=file_data,
            file_id=file_id,
            file_url=file_url,
            filename=filename,
            image_url=image_url,
            text=text,
        )

        response_input_content_part.additional_properties = d
        return response_input_content_part

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
