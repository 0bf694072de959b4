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
        error_code (ErrorCode | Unset): A stable, machine-readable error code: the `code` of a problem+json body, of an
            `error` event and of a failed prompt. Each is listed with the HTTP status of a problem with it; † marks the
            codes a turn can end with (an `error` event, `Prompt.error_code`). Clients should accept codes they do not know:
            later versions add some.

            * `upstream_error` (502, †): The model provider failed (an error status, a broken stream, unreachable).
            * `upstream_stall` (504, †): The model provider stopped sending tokens.
            * `unknown_model` (422, †): The model is not served here.
            * `output_mismatch` (502, †): The model's answer did not fit the requested response format, asked twice.
            * `rate_limited` (429, †): The model provider is rate limiting.
            * `budget_exceeded` (429, †): A spending budget (the user's or a group's, per day or month) is used up.
            * `tool_error` (502, †): A function call failed in a way the turn cannot continue past.
            * `timeout` (504, †): The turn took longer than allowed, or is still running after the wait.
            * `unavailable` (503, †): A dependency (database, job queue, event log) cannot serve the request, or queue a
            turn.
            * `internal_error` (500, †): Parley failed internally; the request id helps find it in the logs.
            * `unauthenticated` (401): Missing, invalid, expired or revoked credentials.
            * `forbidden` (403): The caller's role does not allow this.
            * `auth_throttled` (429): Too many failed authentications from the client's address.
            * `quota_exceeded` (429): Over a quota: the user's or the group's turns per minute or tokens per day.
            * `cors_origin_refused` (403): A browser origin the deployment does not allow.
            * `not_ready` (503): The server is not ready: a dependency is down (`/readyz`).
            * `not_found` (404): No such resource or route, or it belongs to someone else.
            * `method_not_allowed` (405): The route does not accept that method (`Allow` says which it does).
            * `invalid_parameter` (400): A query or header parameter does not parse or breaks its bounds.
            * `invalid_cursor` (400): A `cursor` the list did not hand out.
            * `malformed_json` (400): The body is not valid JSON.
            * `unreadable_body` (400): The body could not be read.
            * `payload_too_large` (413): The body is larger than the configured limit.
            * `unsupported_media_type` (415): The body is not `application/json`.
            * `validation_failed` (422): The body is JSON but does not fit the schema.
            * `bad_request` (400): Any other malformed request poem refused (generic: the status is poem's).
            * `conflict` (409): Any other conflict poem reported (generic: the status is poem's).
            * `error` (400): Any other error poem answered (generic: the status is poem's).
            * `unsupported_file_type` (415): An uploaded file of a type Parley cannot use.
            * `unreadable_file` (422): An uploaded file that is empty, a PDF without text or one that cannot be read.
            * `session_completed` (409): The session is completed: it takes no more messages.
            * `prompt_active` (409): Another prompt of the session is running.
            * `prompt_finished` (409): The prompt has already finished.
            * `not_resumable` (409): Only a failed or errored prompt can be resumed, and this one changed meanwhile.
            * `nothing_to_cancel` (409): The session is not answering anything.
            * `cancelled` (409): The turn was cancelled while the client waited for it.
            * `action_not_offered` (409): The session's last answer does not offer that action.
            * `max_messages_reached` (409): The session reached its `max_messages` limit and is now completed.
            * `max_session_duration_reached` (409): The session reached its `max_session_duration_s` limit and is now
            completed.
            * `assignment_not_open` (409): The assignment is not open yet.
            * `assignment_closed` (409): The assignment has closed.
            * `idempotency_key_reused` (422): This `Idempotency-Key` was sent with a different request.
            * `empty_message` (422): The message is empty.
            * `message_too_long` (422): The message is longer than the deployment allows.
            * `too_many_attachments` (422): The message carries more attachments than allowed.
            * `duplicate_attachment` (422): A file is attached twice.
            * `invalid_response_format` (422): The message's `response_format` cannot be used (not a JSON schema, a bad
            name).
            * `format_unsupported` (422): The answering model cannot answer in a structured format.
            * `unknown_action` (422): Not an action the server runs.
            * `no_tool` (422): The caller may use no chat tool, and named none.
            * `tool_mismatch` (422): The assignment is done with a different tool.
            * `submission_mismatch` (422): The submission belongs to another assignment.
            * `message_not_found` (422): The message a body names is not one of the session's.
            * `nothing_to_regenerate` (422): Only a user message, or an answer to one, can be regenerated.
            * `invalid_title` (422): A session title that is blank or longer than 200 characters.
            * `empty_query` (422): A search without a word to look for.
            * `not_awaiting_approval` (409): The function call is not waiting for approval (decided, expired or cancelled).
            * `invalid_approval_input` (422): Edited input for an approved call that does not fit the function's schema.
            * `not_awaiting_result` (409): The call is not waiting for its caller's result (answered, expired, cancelled).
            * `invalid_call_result` (422): A client function's result is not what the function declares.
            * `invalid_client_function` (422): A message's `client_functions` cannot be offered (a bad name or schema, a
            clash).
            * `not_an_answer` (422): Feedback is given on answers (assistant messages) only.
            * `already_exists` (409): A record with the same unique value already exists.
            * `still_referenced` (409): Other records still refer to it, or a referenced record does not exist.
            * `email_taken` (409): A user with this e-mail address already exists.
            * `token_in_use` (409): An administrator cannot revoke the token the request is made with.
            * `cannot_demote_self` (409): An administrator cannot remove their own admin role.
            * `cannot_disable_self` (409): An administrator cannot disable themselves.
            * `cannot_delete_self` (409): An administrator cannot delete themselves.
            * `tool_in_use` (409): Sessions or assignments use the tool, so it is kept as part of their record.
            * `user_has_sessions` (409): The user has sessions or other records that must be kept.
            * `group_not_empty` (409): The group still has sub-groups, tools or classes.
            * `invalid_window` (422): `closes_at` is not later than `available_at`.
            * `class_not_found` (422): The class does not exist.
            * `tool_not_found` (422): The tool does not exist.
            * `parent_not_found` (422): The parent group does not exist.
            * `group_not_found` (422): The group does not exist.
            * `user_not_found` (422): The user does not exist.
            * `budget_exists` (409): The user or group already has a budget for this period.
            * `unknown_function` (422): Not a function of this deployment.
            * `unknown_payload_type` (422): Not a payload type of this deployment, or not one a model can write.
            * `unknown_module` (422): Not a module of this deployment, or listed twice.
            * `invalid_module_config` (422): A module's configuration it does not accept.
            * `model_not_found` (404): No such model.
            * `previous_response_not_found` (404): No such earlier response, or it belongs to someone else.
            * `unsupported_content` (400): Content parts other than text.
            * `last_message_not_user` (400): The last message is not the user's, with text.
            * `unsupported_input` (400): An input item Parley cannot read: an unknown type, or a client function's result
            for a turn that offered none.
            * `unsupported_parameter` (400): A request option Parley does not offer (`n` above 1, `logprobs`, `audio`, …).
            * `item_not_found` (404): An `item_reference` names no output item of the caller's responses.
            * `response_finished` (400): The response has finished: it cannot be cancelled.
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
