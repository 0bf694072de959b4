//! The module hook contract (DESIGN §8, seed 000 "Hook Execution"): what a module is
//! given ([`HookContext`]) and what it answers ([`HookResult`]).
//!
//! Built-in modules get these values in-process; a webhook module POSTs the context as
//! JSON to an operator's URL and reads the result back, so both types are also schemas
//! of the OpenAPI document (behind the `openapi` feature) for webhook authors to code
//! against. Field names are snake_case on the wire, like the rest of the API.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::SessionConfig;
use uuid::Uuid;

/// A point in a session's life where modules run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
pub enum Hook {
    /// A session was opened (asynchronous: never delays anything).
    #[serde(rename = "session:start")]
    #[cfg_attr(feature = "openapi", oai(rename = "session:start"))]
    SessionStart,
    /// A session ended (asynchronous).
    #[serde(rename = "session:end")]
    #[cfg_attr(feature = "openapi", oai(rename = "session:end"))]
    SessionEnd,
    /// A user message was received (asynchronous observation).
    #[serde(rename = "chat:on_message")]
    #[cfg_attr(feature = "openapi", oai(rename = "chat:on_message"))]
    OnMessage,
    /// Before the model is called (blocking): may block, rewrite the message or add to
    /// the system prompt.
    #[serde(rename = "chat:before_ai")]
    #[cfg_attr(feature = "openapi", oai(rename = "chat:before_ai"))]
    BeforeAi,
    /// After the model answered (blocking): may replace the answer or block it.
    #[serde(rename = "chat:after_ai")]
    #[cfg_attr(feature = "openapi", oai(rename = "chat:after_ai"))]
    AfterAi,
}

impl Hook {
    /// Every hook, in the order of a session's life.
    pub const ALL: [Hook; 5] = [
        Self::SessionStart,
        Self::OnMessage,
        Self::BeforeAi,
        Self::AfterAi,
        Self::SessionEnd,
    ];

    /// The wire name (`chat:before_ai`), also what `module_events.hook` stores.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "session:start",
            Self::SessionEnd => "session:end",
            Self::OnMessage => "chat:on_message",
            Self::BeforeAi => "chat:before_ai",
            Self::AfterAi => "chat:after_ai",
        }
    }

    /// Whether the turn waits for this hook (`before_ai`, `after_ai`).
    pub fn is_blocking(self) -> bool {
        matches!(self, Self::BeforeAi | Self::AfterAi)
    }

    /// Parses a wire name.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|h| h.as_str() == name)
    }
}

/// Everything a module needs to decide, without querying anything.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct HookContext {
    pub request: RequestContext,
    pub user: UserContext,
    pub scope: ScopeContext,
    pub tool: ToolContext,
    pub session: SessionContext,
    pub conversation: ConversationContext,
    /// The model's answer (`chat:after_ai` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<String>,
    /// This module's settings for the tool: its `parley.toml` config with the tool's
    /// override merged in.
    #[serde(default)]
    pub config: Value,
}

/// Which hook runs, for which request, when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct RequestContext {
    /// Unique per hook run (for tracing and idempotency on the receiver's side).
    pub request_id: Uuid,
    pub hook: Hook,
    pub timestamp: DateTime<Utc>,
    /// The generation this run belongs to (chat hooks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt_id: Option<Uuid>,
}

/// The user the session belongs to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct UserContext {
    pub id: Uuid,
    pub email: String,
    pub name: String,
    /// `student`, `teacher` or `admin`.
    pub role: String,
}

/// Where the session happens: the tool's group, and the class and assignment when the
/// session was opened for one.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct ScopeContext {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<GroupScope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub class: Option<ClassScope>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub assignment: Option<AssignmentScope>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct GroupScope {
    pub id: Uuid,
    pub name: String,
    /// The materialized path of ids, root first (`/<root>/<child>/`).
    pub path: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct ClassScope {
    pub id: Uuid,
    pub name: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct AssignmentScope {
    pub id: Uuid,
    pub title: String,
    pub instructions: String,
}

/// The chat tool of the session.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct ToolContext {
    pub id: Uuid,
    pub name: String,
    /// The tool's kind (e.g. `chat`).
    #[serde(rename = "type")]
    #[cfg_attr(feature = "openapi", oai(rename = "type"))]
    pub kind: String,
    /// The session's resolved configuration (organisation → tool → assignment).
    pub definition: SessionConfig,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
pub struct SessionContext {
    pub id: Uuid,
    /// `active` or `completed`.
    pub state: String,
    pub started_at: DateTime<Utc>,
    pub message_count: u32,
    /// Why the session ended (`session:end` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end_reason: Option<String>,
}

/// The conversation so far (oldest first) and the message of this turn.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct ConversationContext {
    pub messages: Vec<ConversationMessage>,
    /// The user's message of this turn (chat hooks), as the earlier modules left it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_message: Option<ConversationMessage>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct ConversationMessage {
    /// Absent for the current message before it is saved.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<Uuid>,
    /// `user`, `assistant` or `system`.
    pub role: String,
    pub content: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seq: Option<u64>,
}

/// Continue the turn, or stop it with a direct response.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
pub enum HookAction {
    #[default]
    Continue,
    Block,
}

/// What a module decided. Every field but `action` is optional; `{"action": "continue"}`
/// (or `{}`) changes nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct HookResult {
    #[serde(default)]
    #[cfg_attr(feature = "openapi", oai(default))]
    pub action: HookAction,
    /// Changes to apply when the turn continues.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub modifications: Option<Modifications>,
    /// Why the message was blocked, for the audit trail (never shown to the user).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_reason: Option<String>,
    /// A short category for what the module did: a block's (e.g. `self_harm`, default
    /// `policy`), shown in `complete` and the block metrics, or a modification's (e.g.
    /// `pii`), shown in the block metrics.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub block_category: Option<String>,
    /// What the user is told instead of a model answer when the module blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub direct_response: Option<String>,
    /// Structured findings to store (`extractions`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", oai(default))]
    pub extractions: Vec<Extraction>,
    /// The audit record of a change the module made (`message_audit`, admin-only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audit: Option<Audit>,
}

impl HookResult {
    /// Nothing to change.
    pub fn proceed() -> Self {
        Self::default()
    }

    /// Stop the turn and answer `direct_response` instead of the model.
    pub fn block(category: &str, reason: String, direct_response: String) -> Self {
        Self {
            action: HookAction::Block,
            block_reason: Some(reason),
            block_category: Some(category.to_owned()),
            direct_response: Some(direct_response),
            ..Self::default()
        }
    }
}

/// Changes a module asks for.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(skip_serializing_if_is_none))]
pub struct Modifications {
    /// Replaces the user's message (`chat:before_ai`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_content: Option<String>,
    /// Replaces the model's answer (`chat:after_ai`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response_content: Option<String>,
    /// Sections added to the system prompt under "Additional Guidance" (`chat:before_ai`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", oai(default))]
    pub system_prompt_additions: Vec<String>,
}

/// A structured finding (e.g. `pii_detected`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(feature = "openapi", oai(rename = "HookExtraction"))]
pub struct Extraction {
    #[serde(rename = "type")]
    #[cfg_attr(feature = "openapi", oai(rename = "type"))]
    pub kind: String,
    pub data: Value,
}

/// The audit record of a change: what the message was, who changed it and why. A
/// redactor stores the redacted text here, never the values it removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Object))]
#[cfg_attr(
    feature = "openapi",
    oai(rename = "HookAudit", skip_serializing_if_is_none)
)]
pub struct Audit {
    pub original_content: String,
    pub redaction_reason: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "openapi", oai(default))]
    pub patterns_matched: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn hook_names_round_trip() {
        for hook in Hook::ALL {
            let json = serde_json::to_value(hook).unwrap();
            assert_eq!(json, json!(hook.as_str()));
            assert_eq!(Hook::parse(hook.as_str()), Some(hook));
            assert_eq!(serde_json::from_value::<Hook>(json).unwrap(), hook);
        }
        assert!(Hook::BeforeAi.is_blocking() && !Hook::OnMessage.is_blocking());
    }

    #[test]
    fn an_empty_result_continues_and_unknown_fields_are_refused() {
        let result: HookResult = serde_json::from_value(json!({})).unwrap();
        assert_eq!(result, HookResult::proceed());
        let block: HookResult = serde_json::from_value(json!({
            "action": "block", "block_reason": "r", "direct_response": "no",
            "extractions": [{"type": "t", "data": {"a": 1}}],
        }))
        .unwrap();
        assert_eq!(block.action, HookAction::Block);
        assert_eq!(block.extractions[0].kind, "t");
        assert!(serde_json::from_value::<HookResult>(json!({"action": "maybe"})).is_err());
        assert!(serde_json::from_value::<HookResult>(json!({"acton": "block"})).is_err());
    }
}
