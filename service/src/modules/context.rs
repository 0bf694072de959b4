//! Building a [`HookContext`] from what is recorded about a session.

use parley_entity::{messages, query::moderation::Scope, sessions};
use parley_protocol::hooks::{
    AssignmentScope, ClassScope, ConversationContext, ConversationMessage, GroupScope, Hook,
    HookContext, RequestContext, ScopeContext, SessionContext, ToolContext, UserContext,
};
use serde_json::Value;
use uuid::Uuid;

/// The context of one hook run for `session` (the per-module `config` is set by the
/// runner).
pub fn build(
    hook: Hook,
    scope: &Scope,
    session: &sessions::Model,
    prompt_id: Option<Uuid>,
    history: &[messages::Model],
) -> HookContext {
    HookContext {
        request: RequestContext {
            request_id: Uuid::now_v7(),
            hook,
            timestamp: chrono::Utc::now(),
            prompt_id,
        },
        user: UserContext {
            id: scope.user.id,
            email: scope.user.email.clone(),
            name: scope.user.name.clone(),
            role: enum_word(&scope.user.role),
        },
        scope: ScopeContext {
            group: scope.group.as_ref().map(|g| GroupScope {
                id: g.id,
                name: g.name.clone(),
                path: g.path.clone(),
            }),
            class: scope.class.as_ref().map(|c| ClassScope {
                id: c.id,
                name: c.name.clone(),
            }),
            assignment: scope.assignment.as_ref().map(|a| AssignmentScope {
                id: a.id,
                title: a.title.clone(),
                instructions: a.instructions.clone(),
            }),
        },
        tool: ToolContext {
            id: scope.tool.id,
            name: scope.tool.name.clone(),
            kind: scope.tool.r#type.clone(),
            definition: session.config.clone(),
        },
        session: SessionContext {
            id: session.id,
            state: enum_word(&session.state),
            started_at: session.started_at,
            message_count: session.message_count.max(0) as u32,
            end_reason: session.end_reason.clone(),
        },
        conversation: ConversationContext {
            messages: history.iter().map(message).collect(),
            current_message: None,
        },
        response: None,
        config: Value::Null,
    }
}

/// A stored message as a hook sees it.
pub fn message(m: &messages::Model) -> ConversationMessage {
    ConversationMessage {
        id: Some(m.id),
        role: enum_word(&m.role),
        content: m.content.clone(),
        seq: Some(m.seq.max(0) as u64),
    }
}

/// The user's message of this turn, before it is saved.
pub fn current(content: &str) -> ConversationMessage {
    ConversationMessage {
        id: None,
        role: "user".into(),
        content: content.to_owned(),
        seq: None,
    }
}

/// The snake_case word a stored enum serializes as.
fn enum_word<T: serde::Serialize>(value: &T) -> String {
    match serde_json::to_value(value) {
        Ok(Value::String(word)) => word,
        _ => String::new(),
    }
}
