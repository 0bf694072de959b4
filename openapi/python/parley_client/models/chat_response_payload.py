from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.custom_payload import CustomPayload
    from ..models.suggested_action import SuggestedAction
    from ..models.suggested_value import SuggestedValue
    from ..models.tool_history_entry import ToolHistoryEntry


T = TypeVar("T", bound="ChatResponsePayload")


@_attrs_define
class ChatResponsePayload:
    """The final response of a turn (seed `ChatResponsePayload`).

    Attributes:
        message (str): The answer's text.
        custom_payload (CustomPayload | Unset): A structured payload attached to a response.
        suggested_actions (list[SuggestedAction] | Unset): Buttons the client shows.
        suggested_values (list[SuggestedValue] | Unset): Values the user can pick.
        tool_history (list[ToolHistoryEntry] | Unset): The function calls of the turn, in the order of their markers.
    """

    message: str
    custom_payload: CustomPayload | Unset = UNSET
    suggested_actions: list[SuggestedAction] | Unset = UNSET
    suggested_values: list[SuggestedValue] | Unset = UNSET
    tool_history: list[ToolHistoryEntry] | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        custom_payload: dict[str, Any] | Unset = UNSET
        if not isinstance(self.custom_payload, Unset):
            custom_payload = self.custom_payload.to_dict()

        suggested_actions: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.suggested_actions, Unset):
            suggested_actions = []
            for suggested_actions_item_data in self.suggested_actions:
                suggested_actions_item = suggested_actions_item_data.to_dict()
                suggested_actions.append(suggested_actions_item)

        suggested_values: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.suggested_values, Unset):
            suggested_values = []
            for suggested_values_item_data in self.suggested_values:
                suggested_values_item = suggested_values_item_data.to_dict()
                suggested_values.append(suggested_values_item)

        tool_history: list[dict[str, Any]] | Unset = UNSET
        if not isinstance(self.tool_history, Unset):
            tool_history = []
            for tool_history_item_data in self.tool_history:
                tool_history_item = tool_history_item_data.to_dict()
                tool_history.append(tool_history_item)

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "message": message,
            }
        )
        if custom_payload is not UNSET:
            field_dict["custom_payload"] = custom_payload
        if suggested_actions is not UNSET:
            field_dict["suggested_actions"] = suggested_actions
        if suggested_values is not UNSET:
            field_dict["suggested_values"] = suggested_values
        if tool_history is not UNSET:
            field_dict["tool_history"] = tool_history

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.custom_payload import CustomPayload
        from ..models.suggested_action import SuggestedAction
        from ..models.suggested_value import SuggestedValue
        from ..models.tool_history_entry import ToolHistoryEntry

        d = dict(src_dict)
        message = d.pop("message")

        _custom_payload = d.pop("custom_payload", UNSET)
        custom_payload: CustomPayload | Unset
        if isinstance(_custom_payload, Unset):
            custom_payload = UNSET
        else:
            custom_payload = CustomPayload.from_dict(_custom_payload)

        _suggested_actions = d.pop("suggested_actions", UNSET)
        suggested_actions: list[SuggestedAction] | Unset = UNSET
        if _suggested_actions is not UNSET:
            suggested_actions = []
            for suggested_actions_item_data in _suggested_actions:
                suggested_actions_item = SuggestedAction.from_dict(
                    suggested_actions_item_data
                )

                suggested_actions.append(suggested_actions_item)

        _suggested_values = d.pop("suggested_values", UNSET)
        suggested_values: list[SuggestedValue] | Unset = UNSET
        if _suggested_values is not UNSET:
            suggested_values = []
            for suggested_values_item_data in _suggested_values:
                suggested_values_item = SuggestedValue.from_dict(
                    suggested_values_item_data
                )

                suggested_values.append(suggested_values_item)

        _tool_history = d.pop("tool_history", UNSET)
        tool_history: list[ToolHistoryEntry] | Unset = UNSET
        if _tool_history is not UNSET:
            tool_history = []
            for tool_history_item_data in _tool_history:
                tool_history_item = ToolHistoryEntry.from_dict(tool_history_item_data)

                tool_history.append(tool_history_item)

        chat_response_payload = cls(
            message=message,
            custom_payload=custom_payload,
            suggested_actions=suggested_actions,
            suggested_values=suggested_values,
            tool_history=tool_history,
        )

        chat_response_payload.additional_properties = d
        return chat_response_payload

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
