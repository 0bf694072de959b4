from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.error_code import ErrorCode
from ..models.prompt_state import PromptState
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.route_decision import RouteDecision


T = TypeVar("T", bound="Prompt")


@_attrs_define
class Prompt:
    """One generation of a session.

    Attributes:
        attempt (int): How many times a worker started it.
        created_at (datetime.datetime):
        events_url (str): Where its event feed is (`GET`, SSE).
        id (UUID):
        session_id (UUID):
        state (PromptState): The states of a prompt (one generation), DESIGN §4.
        assistant_message_id (UUID | Unset):
        cancel_requested_at (datetime.datetime | Unset):
        completed_at (datetime.datetime | Unset):
        error (str | Unset): The failure, for a person to read.
        error_code (ErrorCode | Unset): Why a generation stopped with an error (DESIGN §6): the `code` of an `error`
            event
            and what `prompts.error_code` stores.
        model (str | Unset):
        route (RouteDecision | Unset): How the skill router decided a turn.

            `confidence`, `cost` and `selection_score` are those of the best-scoring skill (the
            winner, or the one that came closest); all three are 0 when no skill's pattern
            matched the message.
        started_at (datetime.datetime | Unset):
        user_message_id (UUID | Unset):
        vendor (str | Unset):
    """

    attempt: int
    created_at: datetime.datetime
    events_url: str
    id: UUID
    session_id: UUID
    state: PromptState
    assistant_message_id: UUID | Unset = UNSET
    cancel_requested_at: datetime.datetime | Unset = UNSET
    completed_at: datetime.datetime | Unset = UNSET
    error: str | Unset = UNSET
    error_code: ErrorCode | Unset = UNSET
    model: str | Unset = UNSET
    route: RouteDecision | Unset = UNSET
    started_at: datetime.datetime | Unset = UNSET
    user_message_id: UUID | Unset = UNSET
    vendor: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attempt = self.attempt

        created_at = self.created_at.isoformat()

        events_url = self.events_url

        id = str(self.id)

        session_id = str(self.session_id)

        state = self.state.value

        assistant_message_id: str | Unset = UNSET
        if not isinstance(self.assistant_message_id, Unset):
            assistant_message_id = str(self.assistant_message_id)

        cancel_requested_at: str | Unset = UNSET
        if not isinstance(self.cancel_requested_at, Unset):
            cancel_requested_at = self.cancel_requested_at.isoformat()

        completed_at: str | Unset = UNSET
        if not isinstance(self.completed_at, Unset):
            completed_at = self.completed_at.isoformat()

        error = self.error

        error_code: str | Unset = UNSET
        if not isinstance(self.error_code, Unset):
            error_code = self.error_code.value

        model = self.model

        route: dict[str, Any] | Unset = UNSET
        if not isinstance(self.route, Unset):
            route = self.route.to_dict()

        started_at: str | Unset = UNSET
        if not isinstance(self.started_at, Unset):
            started_at = self.started_at.isoformat()

        user_message_id: str | Unset = UNSET
        if not isinstance(self.user_message_id, Unset):
            user_message_id = str(self.user_message_id)

        vendor = self.vendor

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attempt": attempt,
                "created_at": created_at,
                "events_url": events_url,
                "id": id,
                "session_id": session_id,
                "state": state,
            }
        )
        if assistant_message_id is not UNSET:
            field_dict["assistant_message_id"] = assistant_message_id
        if cancel_requested_at is not UNSET:
            field_dict["cancel_requested_at"] = cancel_requested_at
        if completed_at is not UNSET:
            field_dict["completed_at"] = completed_at
        if error is not UNSET:
            field_dict["error"] = error
        if error_code is not UNSET:
            field_dict["error_code"] = error_code
        if model is not UNSET:
            field_dict["model"] = model
        if route is not UNSET:
            field_dict["route"] = route
        if started_at is not UNSET:
            field_dict["started_at"] = started_at
        if user_message_id is not UNSET:
            field_dict["user_message_id"] = user_message_id
        if vendor is not UNSET:
            field_dict["vendor"] = vendor

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.route_decision import RouteDecision

        d = dict(src_dict)
        attempt = d.pop("attempt")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        events_url = d.pop("events_url")

        id = UUID(d.pop("id"))

        session_id = UUID(d.pop("session_id"))

        state = PromptState(d.pop("state"))

        _assistant_message_id = d.pop("assistant_message_id", UNSET)
        assistant_message_id: UUID | Unset
        if isinstance(_assistant_message_id, Unset):
            assistant_message_id = UNSET
        else:
            assistant_message_id = UUID(_assistant_message_id)

        _cancel_requested_at = d.pop("cancel_requested_at", UNSET)
        cancel_requested_at: datetime.datetime | Unset
        if isinstance(_cancel_requested_at, Unset):
            cancel_requested_at = UNSET
        else:
            cancel_requested_at = datetime.datetime.fromisoformat(_cancel_requested_at)

        _completed_at = d.pop("completed_at", UNSET)
        completed_at: datetime.datetime | Unset
        if isinstance(_completed_at, Unset):
            completed_at = UNSET
        else:
            completed_at = datetime.datetime.fromisoformat(_completed_at)

        error = d.pop("error", UNSET)

        _error_code = d.pop("error_code", UNSET)
        error_code: ErrorCode | Unset
        if isinstance(_error_code, Unset):
            error_code = UNSET
        else:
            error_code = ErrorCode(_error_code)

        model = d.pop("model", UNSET)

        _route = d.pop("route", UNSET)
        route: RouteDecision | Unset
        if isinstance(_route, Unset):
            route = UNSET
        else:
            route = RouteDecision.from_dict(_route)

        _started_at = d.pop("started_at", UNSET)
        started_at: datetime.datetime | Unset
        if isinstance(_started_at, Unset):
            started_at = UNSET
        else:
            started_at = datetime.datetime.fromisoformat(_started_at)

        _user_message_id = d.pop("user_message_id", UNSET)
        user_message_id: UUID | Unset
        if isinstance(_user_message_id, Unset):
            user_message_id = UNSET
        else:
            user_message_id = UUID(_user_message_id)

        vendor = d.pop("vendor", UNSET)

        prompt = cls(
            attempt=attempt,
            created_at=created_at,
            events_url=events_url,
            id=id,
            session_id=session_id,
            state=state,
            assistant_message_id=assistant_message_id,
            cancel_requested_at=cancel_requested_at,
            completed_at=completed_at,
            error=error,
            error_code=error_code,
            model=model,
            route=route,
            started_at=started_at,
            user_message_id=user_message_id,
            vendor=vendor,
        )

        prompt.additional_properties = d
        return prompt

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
