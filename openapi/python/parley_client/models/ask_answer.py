from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

if TYPE_CHECKING:
    from ..models.finished_turn import FinishedTurn


T = TypeVar("T", bound="AskAnswer")


@_attrs_define
class AskAnswer:
    """The finished turn of an `/v1/ask`, in its conversation.

    Attributes:
        rid (str): The conversation's request id: send it back to continue.
        session_id (UUID):
        turn (FinishedTurn): A finished turn (`Accept: application/json`): the fields of its `complete` event.
    """

    rid: str
    session_id: UUID
    turn: FinishedTurn
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        rid = self.rid

        session_id = str(self.session_id)

        turn = self.turn.to_dict()

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "rid": rid,
                "session_id": session_id,
                "turn": turn,
            }
        )

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.finished_turn import FinishedTurn

        d = dict(src_dict)
        rid = d.pop("rid")

        session_id = UUID(d.pop("session_id"))

        turn = FinishedTurn.from_dict(d.pop("turn"))

        ask_answer = cls(
            rid=rid,
            session_id=session_id,
            turn=turn,
        )

        ask_answer.additional_properties = d
        return ask_answer

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
