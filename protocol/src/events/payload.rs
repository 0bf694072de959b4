//! What a finished answer carries beside its text (`complete.payload`): suggestions,
//! actions, a function's custom payload, and the calls made.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::ToolCallState;

/// A suggested value the user can pick.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuggestedValue {
    pub label: String,
    pub value: String,
}

/// A suggested action (a button), handled by the client or the server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SuggestedAction {
    pub label: String,
    pub action: String,
    pub handler: ActionHandler,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
}

/// Who handles a suggested action.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
#[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
pub enum ActionHandler {
    Client,
    Server,
}

/// A structured payload attached to a response (validated against the payload registry).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CustomPayload {
    #[serde(rename = "type")]
    pub kind: String,
    pub data: Value,
}

/// One function call of the turn, as the client sees it in the final payload; entry N
/// is the call of the `[[tool:N]]` marker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolHistoryEntry {
    pub tool_name: String,
    pub input: Value,
    pub output: Value,
    pub status: ToolCallState,
    pub duration_ms: u64,
}

/// The final response of a turn (seed `ChatResponsePayload`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ChatResponsePayload {
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub custom_payload: Option<CustomPayload>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_values: Option<Vec<SuggestedValue>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suggested_actions: Option<Vec<SuggestedAction>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_history: Option<Vec<ToolHistoryEntry>>,
}
