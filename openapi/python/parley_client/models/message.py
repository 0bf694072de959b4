from __future__ import annotations

import datetime
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar
from uuid import UUID

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..models.message_role import MessageRole
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.attachment import Attachment
    from ..models.feedback import Feedback


T = TypeVar("T", bound="Message")


@_attrs_define
class Message:
    """One message of a session.

    Attributes:
        attachments (list[Attachment]): The files attached to a user message, in order.
        content (str): The rendered text (`[blocked]` for a blocked user message).
        created_at (datetime.datetime):
        id (UUID):
        is_complete (bool): False while the assistant is still writing it.
        role (MessageRole): Who wrote a message.
        seq (int): Position in the session (creation order over all branches), gap-free from 1.
        siblings (list[UUID]): The ids of this message's siblings — the messages with the same parent: edits of
            a user message, other answers to one — itself included, in creation order. More
            than one: show a ‹ n/m › switcher (n is this message's position among them) and
            read another sibling's branch with `?branch=`.
        feedback (Feedback | Unset): The caller's feedback on an answer.
        parent_id (UUID | Unset): The message this one follows in the session's tree; absent for a first message.
        prompt_id (UUID | Unset):
    """

    attachments: list[Attachment]
    content: str
    created_at: datetime.datetime
    id: UUID
    is_complete: bool
    role: MessageRole
    seq: int
    siblings: list[UUID]
    feedback: Feedback | Unset = UNSET
    parent_id: UUID | Unset = UNSET
    prompt_id: UUID | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        attachments = []
        for attachments_item_data in self.attachments:
            attachments_item = attachments_item_data.to_dict()
            attachments.append(attachments_item)

        content = self.content

        created_at = self.created_at.isoformat()

        id = str(self.id)

        is_complete = self.is_complete

        role = self.role.value

        seq = self.seq

        siblings = []
        for siblings_item_data in self.siblings:
            siblings_item = str(siblings_item_data)
            siblings.append(siblings_item)

        feedback: dict[str, Any] | Unset = UNSET
        if not isinstance(self.feedback, Unset):
            feedback = self.feedback.to_dict()

        parent_id: str | Unset = UNSET
        if not isinstance(self.parent_id, Unset):
            parent_id = str(self.parent_id)

        prompt_id: str | Unset = UNSET
        if not isinstance(self.prompt_id, Unset):
            prompt_id = str(self.prompt_id)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "attachments": attachments,
                "content": content,
                "created_at": created_at,
                "id": id,
                "is_complete": is_complete,
                "role": role,
                "seq": seq,
                "siblings": siblings,
            }
        )
        if feedback is not UNSET:
            field_dict["feedback"] = feedback
        if parent_id is not UNSET:
            field_dict["parent_id"] = parent_id
        if prompt_id is not UNSET:
            field_dict["prompt_id"] = prompt_id

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.attachment import Attachment
        from ..models.feedback import Feedback

        d = dict(src_dict)
        attachments = []
        _attachments = d.pop("attachments")
        for attachments_item_data in _attachments:
            attachments_item = Attachment.from_dict(attachments_item_data)

            attachments.append(attachments_item)

        content = d.pop("content")

        created_at = datetime.datetime.fromisoformat(d.pop("created_at"))

        id = UUID(d.pop("id"))

        is_complete = d.pop("is_complete")

        role = MessageRole(d.pop("role"))

        seq = d.pop("seq")

        siblings = []
        _siblings = d.pop("siblings")
        for siblings_item_data in _siblings:
            siblings_item = UUID(siblings_item_data)

            siblings.append(siblings_item)

        _feedback = d.pop("feedback", UNSET)
        feedback: Feedback | Unset
        if isinstance(_feedback, Unset):
            feedback = UNSET
        else:
            feedback = Feedback.from_dict(_feedback)

        _parent_id = d.pop("parent_id", UNSET)
        parent_id: UUID | Unset
        if isinstance(_parent_id, Unset):
            parent_id = UNSET
        else:
            parent_id = UUID(_parent_id)

        _prompt_id = d.pop("prompt_id", UNSET)
        prompt_id: UUID | Unset
        if isinstance(_prompt_id, Unset):
            prompt_id = UNSET
        else:
            prompt_id = UUID(_prompt_id)

        message = cls(
            attachments=attachments,
            content=content,
            created_at=created_at,
            id=id,
            is_complete=is_complete,
            role=role,
            seq=seq,
            siblings=siblings,
            feedback=feedback,
            parent_id=parent_id,
            prompt_id=prompt_id,
        )

        message.additional_properties = d
        return message

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
