from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.client_function import ClientFunction
    from ..models.output_format import OutputFormat


T = TypeVar("T", bound="CreateMessage")


@_attrs_define
class CreateMessage:
    """A message to the session's tool.

    Attributes:
        content (str): What the user says: at least one character that is not white space, at most
            32768 characters (the deployment may set a lower limit).
        attachments (list[UUID] | None | Unset): Files of the caller to attach (`POST /v1/files`), each once; the
            deployment
            bounds how many (`files.max_attachments`, 422 `too_many_attachments` above).
        client_functions (list[ClientFunction] | None | Unset): Functions the caller runs itself, offered to the model
            for this turn besides the
            tool's (see `ClientFunction`); at most 128.
        model (None | str | Unset): The model to answer with (see `GET /v1/models`); absent: the default model.
        parent_message_id (None | Unset | UUID): Edit: the message of this session the new message follows, instead of
            the end of
            the active branch. To edit a message, send its replacement with the edited
            message's `parent_id`: the new message is its sibling, and its branch becomes the
            active one. The nil UUID (`00000000-0000-0000-0000-000000000000`) makes it a new
            first message (an edit of the session's first message). Another session's
            message: 422 `message_not_found`.
        response_format (None | OutputFormat | Unset): The answer must be JSON of this format (see `OutputFormat`).
    """

    content: str
    attachments: list[UUID] | None | Unset = UNSET
    client_functions: list[ClientFunction] | None | Unset = UNSET
    model: None | str | Unset = UNSET
    parent_message_id: None | Unset | UUID = UNSET
    response_format: None | OutputFormat | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.output_format import OutputFormat

        content = self.content

        attachments: list[str] | None | Unset
        if isinstance(self.attachments, Unset):
            attachments = UNSET
        elif isinstance(self.attachments, list):
            attachments = []
            for attachments_type_0_item_data in self.attachments:
                attachments_type_0_item = str(attachments_type_0_item_data)
                attachments.append(attachments_type_0_item)

        else:
            attachments = self.attachments

        client_functions: list[dict[str, Any]] | None | Unset
        if isinstance(self.client_functions, Unset):
            client_functions = UNSET
        elif isinstance(self.client_functions, list):
            client_functions = []
            for client_functions_type_0_item_data in self.client_functions:
                client_functions_type_0_item = (
                    client_functions_type_0_item_data.to_dict()
                )
                client_functions.append(client_functions_type_0_item)

        else:
            client_functions = self.client_functions

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        parent_message_id: None | str | Unset
        if isinstance(self.parent_message_id, Unset):
            parent_message_id = UNSET
        elif isinstance(self.parent_message_id, UUID):
            parent_message_id = str(self.parent_message_id)
        else:
            parent_message_id = self.parent_message_id

        response_format: dict[str, Any] | None | Unset
        if isinstance(self.response_format, Unset):
            response_format = UNSET
        elif isinstance(self.response_format, OutputFormat):
            response_format = self.response_format.to_dict()
        else:
            response_format = self.response_format

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "content": content,
            }
        )
        if attachments is not UNSET:
            field_dict["attachments"] = attachments
        if client_functions is not UNSET:
            field_dict["client_functions"] = client_functions
        if model is not UNSET:
            field_dict["model"] = model
        if parent_message_id is not UNSET:
            field_dict["parent_message_id"] = parent_message_id
        if response_format is not UNSET:
            field_dict["response_format"] = response_format

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.client_function import ClientFunction
        from ..models.output_format import OutputFormat

        d = dict(src_dict)
        content = d.pop("content")

        def _parse_attachments(data: object) -> list[UUID] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                attachments_type_0 = []
                _attachments_type_0 = data
                for attachments_type_0_item_data in _attachments_type_0:
                    attachments_type_0_item = UUID(attachments_type_0_item_data)

                    attachments_type_0.append(attachments_type_0_item)

                return attachments_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[UUID] | None | Unset, data)

        attachments = _parse_attachments(d.pop("attachments", UNSET))

        def _parse_client_functions(
            data: object,
        ) -> list[ClientFunction] | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, list):
                    raise TypeError()
                client_functions_type_0 = []
                _client_functions_type_0 = data
                for client_functions_type_0_item_data in _client_functions_type_0:
                    client_functions_type_0_item = ClientFunction.from_dict(
                        client_functions_type_0_item_data
                    )

                    client_functions_type_0.append(client_functions_type_0_item)

                return client_functions_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(list[ClientFunction] | None | Unset, data)

        client_functions = _parse_client_functions(d.pop("client_functions", UNSET))

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_parent_message_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                parent_message_id_type_0 = UUID(data)

                return parent_message_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        parent_message_id = _parse_parent_message_id(d.pop("parent_message_id", UNSET))

        def _parse_response_format(data: object) -> None | OutputFormat | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_format_type_1 = OutputFormat.from_dict(data)

                return response_format_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | OutputFormat | Unset, data)

        response_format = _parse_response_format(d.pop("response_format", UNSET))

        create_message = cls(
            content=content,
            attachments=attachments,
            client_functions=client_functions,
            model=model,
            parent_message_id=parent_message_id,
            response_format=response_format,
        )

        return create_message
