from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar

from attrs import define as _attrs_define
from attrs import field as _attrs_field

from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.conversation_context import ConversationContext
    from ..models.request_context import RequestContext
    from ..models.scope_context import ScopeContext
    from ..models.session_context import SessionContext
    from ..models.tool_context import ToolContext
    from ..models.user_context import UserContext


T = TypeVar("T", bound="HookContext")


@_attrs_define
class HookContext:
    """Everything a module needs to decide, without querying anything.

    Attributes:
        config (Any): This module's settings for the tool: its `parley.toml` config with the tool's
            override merged in.
        conversation (ConversationContext): The conversation so far (oldest first) and the message of this turn.
        request (RequestContext): Which hook runs, for which request, when.
        scope (ScopeContext): Where the session happens: the tool's group, and the class and assignment when the
            session was opened for one.
        session (SessionContext):
        tool (ToolContext): The chat tool of the session.
        user (UserContext): The user the session belongs to.
        response (str | Unset): The model's answer (`chat:after_ai` only).
    """

    config: Any
    conversation: ConversationContext
    request: RequestContext
    scope: ScopeContext
    session: SessionContext
    tool: ToolContext
    user: UserContext
    response: str | Unset = UNSET
    additional_properties: dict[str, Any] = _attrs_field(init=False, factory=dict)

    def to_dict(self) -> dict[str, Any]:
        config = self.config

        conversation = self.conversation.to_dict()

        request = self.request.to_dict()

        scope = self.scope.to_dict()

        session = self.session.to_dict()

        tool = self.tool.to_dict()

        user = self.user.to_dict()

        response = self.response

        field_dict: dict[str, Any] = {}
        field_dict.update(self.additional_properties)
        field_dict.update(
            {
                "config": config,
                "conversation": conversation,
                "request": request,
                "scope": scope,
                "session": session,
                "tool": tool,
                "user": user,
            }
        )
        if response is not UNSET:
            field_dict["response"] = response

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.conversation_context import ConversationContext
        from ..models.request_context import RequestContext
        from ..models.scope_context import ScopeContext
        from ..models.session_context import SessionContext
        from ..models.tool_context import ToolContext
        from ..models.user_context import UserContext

        d = dict(src_dict)
        config = d.pop("config")

        conversation = ConversationContext.from_dict(d.pop("conversation"))

        request = RequestContext.from_dict(d.pop("request"))

        scope = ScopeContext.from_dict(d.pop("scope"))

        session = SessionContext.from_dict(d.pop("session"))

        tool = ToolContext.from_dict(d.pop("tool"))

        user = UserContext.from_dict(d.pop("user"))

        response = d.pop("response", UNSET)

        hook_context = cls(
            config=config,
            conversation=conversation,
            request=request,
            scope=scope,
            session=session,
            tool=tool,
            user=user,
            response=response,
        )

        hook_context.additional_properties = d
        return hook_context

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
