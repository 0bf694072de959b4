from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast
from uuid import UUID

from attrs import define as _attrs_define

from ..types import UNSET, Unset

T = TypeVar("T", bound="AskRequest")


@_attrs_define
class AskRequest:
    """One message to ask.

    Attributes:
        prompt (str): What the user says.
        model (None | str | Unset): `auto` (or absent): the router chooses; otherwise a model id (`GET /v1/models`).
        rid (None | str | Unset): The conversation to continue; absent: a new one.
        stream (bool | None | Unset): Stream the answer as Server-Sent Events (default `true`), or return the
            finished turn.
        tool_id (None | Unset | UUID): A new conversation's chat tool; absent: the first tool the caller may use.
            Ignored when continuing one.
    """

    prompt: str
    model: None | str | Unset = UNSET
    rid: None | str | Unset = UNSET
    stream: bool | None | Unset = UNSET
    tool_id: None | Unset | UUID = UNSET

    def to_dict(self) -> dict[str, Any]:
        prompt = self.prompt

        model: None | str | Unset
        if isinstance(self.model, Unset):
            model = UNSET
        else:
            model = self.model

        rid: None | str | Unset
        if isinstance(self.rid, Unset):
            rid = UNSET
        else:
            rid = self.rid

        stream: bool | None | Unset
        if isinstance(self.stream, Unset):
            stream = UNSET
        else:
            stream = self.stream

        tool_id: None | str | Unset
        if isinstance(self.tool_id, Unset):
            tool_id = UNSET
        elif isinstance(self.tool_id, UUID):
            tool_id = str(self.tool_id)
        else:
            tool_id = self.tool_id

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "prompt": prompt,
            }
        )
        if model is not UNSET:
            field_dict["model"] = model
        if rid is not UNSET:
            field_dict["rid"] = rid
        if stream is not UNSET:
            field_dict["stream"] = stream
        if tool_id is not UNSET:
            field_dict["tool_id"] = tool_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        prompt = d.pop("prompt")

        def _parse_model(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        model = _parse_model(d.pop("model", UNSET))

        def _parse_rid(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        rid = _parse_rid(d.pop("rid", UNSET))

        def _parse_stream(data: object) -> bool | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(bool | None | Unset, data)

        stream = _parse_stream(d.pop("stream", UNSET))

        def _parse_tool_id(data: object) -> None | Unset | UUID:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, str):
                    raise TypeError()
                tool_id_type_0 = UUID(data)

                return tool_id_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | Unset | UUID, data)

        tool_id = _parse_tool_id(d.pop("tool_id", UNSET))

        ask_request = cls(
            prompt=prompt,
            model=model,
            rid=rid,
            stream=stream,
            tool_id=tool_id,
        )

        return ask_request
