from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.tool_call_state import ToolCallState
from ..types import UNSET, Unset

T = TypeVar("T", bound="ToolCall")


@_attrs_define
class ToolCall:
    """A function call of a turn that waits for approval or for the caller's result, or was
    decided or answered.

        Attributes:
            created_at (datetime.datetime):
            function (str): The function called.
            id (UUID): The call's id (what approve, deny and result take).
            input_ (Any): The arguments it runs (or ran) with.
            prompt_id (UUID):
            session_id (UUID):
            state (ToolCallState): The life of one function call (`tool_calls.state`, `tool_complete.state`).
            approval_expires_at (datetime.datetime | Unset): Until when it waits for approval or for the caller's result
                (while
                `awaiting_approval` or `awaiting_client`).
            decided_at (datetime.datetime | Unset):
            decided_by (UUID | Unset): Who approved, denied or answered it (absent for an expiry).
            decision_reason (str | Unset): Why it was denied (`expired` when no one decided in time).
            error (str | Unset): Why it failed.
            requested_input (Any | Unset): The arguments the model asked for, when edited ones were approved.
            result (Any | Unset): What the model reads of it, once it ran or was answered.
    """

    created_at: datetime.datetime
    function: str
    id: UUID
    input_: Any
    prompt_id: UUID
    session_id: UUID
    state: ToolCallState
    approval_expires_at: datetime.datetime | Unset = UNSET
    decided_at: datetime.datetime | Unset = UNSET
    decided_by: UUID | Unset = UNSET
    decision_reason: str | Unset = UNSET
    error: str | Unset = UNSET
    requested_input: Any | Unset = UNSET
    result: Any | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        created_at = self.created_at.isoformat()

        function = self.function

        id = str(self.id)

        input_ = self.input_

        prompt_id = str(self.prompt_id)

        session_id = str(self.session_id)

        state = self.state.value

        approval_expires_at: str | Unset = UNSET
        if not isinstance(self.approval_expires_at, Unset):
            approval_expires_at = self.approval_expires_at.isoformat()

        decided_at: str | Unset = UNSET
        if not isinstance(self.decided_at, Unset):
            decided_at = self.decided_at.isoformat()

        decided_by: str | Unset = UNSET
        if not isinstance(self.decided_by, Unset):
            decided_by = str(self.decided_by)

        decision_reason = self.decision_reason

        error = self.error

        requested_input = self.requested_input

        result = self.result

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "created_at": created_at,
                "function": function,
                "id": id,
                "input": input_,
                "prompt_id": prompt_id,
                "session_id": session_id,
                "state": state,
            }
        )
        if approval_expires_at is not UNSET:
            field_dict["approval_expires_at"] = approval_expires_at
        if decided_at is not UNSET:
            field_dict["decided_at"] = decided_at
        if decided_by is not UNSET:
            field_dict["decided_by"] = decided_by
        if decision_reason is not UNSET:
            field_dict["decision_reason"] = decision_reason
        if error is not UNSET:
            field_dict["error"] = error
        if requested_input is not UNSET:
            field_dict["requested_input"] = requested_input
        if result is not UNSET:
            field_dict["result"] = result

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        function = d.pop("function")

        id = UUID(d.pop("id"))

        input_ = d.pop("input")

        prompt_id = UUID(d.pop("prompt_id"))

        session_id = UUID(d.pop("session_id"))

        state = ToolCallState(d.pop("state"))

        _approval_expires_at = d.pop("approval_expires_at", UNSET)
        approval_expires_at: datetime.datetime | Unset
        if isinstance(_approval_expires_at, Unset):
            approval_expires_at = UNSET
        else:
            approval_expires_at = datetime.datetime.fromisoformat(_approval_expires_at)

        _decided_at = d.pop("decided_at", UNSET)
        decided_at: datetime.datetime | Unset
        if isinstance(_decided_at, Unset):
            decided_at = UNSET
        else:
            decided_at = datetime.datetime.fromisoformat(_decided_at)

        _decided_by = d.pop("decided_by", UNSET)
        decided_by: UUID | Unset
        if isinstance(_decided_by, Unset):
            decided_by = UNSET
        else:
            decided_by = UUID(_decided_by)

        decision_reason = d.pop("decision_reason", UNSET)

        error = d.pop("error", UNSET)

        requested_input = d.pop("requested_input", UNSET)

        result = d.pop("result", UNSET)

        tool_call = cls(
            created_at=created_at,
            function=function,
            id=id,
            input_=input_,
            prompt_id=prompt_id,
            session_id=session_id,
            state=state,
            approval_expires_at=approval_expires_at,
            decided_at=decided_at,
            decided_by=decided_by,
            decision_reason=decision_reason,
            error=error,
            requested_input=requested_input,
            result=result,
        )

        tool_call.additional_properties = d
        return tool_call

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
