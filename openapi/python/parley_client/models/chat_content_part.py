from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.chat_file_data import ChatFileData
    from ..models.chat_image_url import ChatImageUrl


T = TypeVar("T", bound="ChatContentPart")


@_attrs_define
class ChatContentPart:
    """A part of a message's content: `text`, `image_url` or `file`. The last message's
    images and files are its attachments (stored, shown in the session, sent to a model
    with vision); an earlier message's are left out of the imported history.

        Attributes:
            type_ (str): `text`, `image_url` or `file` (others — `input_audio` — are refused).
            file (ChatFileData | None | Unset): `file`: the file.
            image_url (ChatImageUrl | None | Unset): `image_url`: the image.
            text (None | str | Unset):
    """

    type_: str
    file: ChatFileData | None | Unset = UNSET
    image_url: ChatImageUrl | None | Unset = UNSET
    text: None | str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        from ..models.chat_file_data import ChatFileData
        from ..models.chat_image_url import ChatImageUrl

        type_ = self.type_

        file: dict[str, Any] | None | Unset
        if isinstance(self.file, Unset):
            file = UNSET
        elif isinstance(self.file, ChatFileData):
            file = self.file.to_dict()
        else:
            file = self.file

        image_url: dict[str, Any] | None | Unset
        if isinstance(self.image_url, Unset):
            image_url = UNSET
        elif isinstance(self.image_url, ChatImageUrl):
            image_url = self.image_url.to_dict()
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
        if file is not UNSET:
            field_dict["file"] = file
        if image_url is not UNSET:
            field_dict["image_url"] = image_url
        if text is not UNSET:
            field_dict["text"] = text

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.chat_file_data import ChatFileData
        from ..models.chat_image_url import ChatImageUrl

        d = dict(src_dict)
        type_ = d.pop("type")

        def _parse_file(data: object) -> ChatFileData | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                file_type_1 = ChatFileData.from_dict(data)

                return file_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatFileData | None | Unset, data)

        file = _parse_file(d.pop("file", UNSET))

        def _parse_image_url(data: object) -> ChatImageUrl | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                image_url_type_1 = ChatImageUrl.from_dict(data)

                return image_url_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(ChatImageUrl | None | Unset, data)

        image_url = _parse_image_url(d.pop("image_url", UNSET))

        def _parse_text(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        text = _parse_text(d.pop("text", UNSET))

        chat_content_part = cls(
            type_=type_,
            file=file,
            image_url=image_url,
            text=text,
        )

        chat_content_part.additional_properties = d
        return chat_content_part

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
