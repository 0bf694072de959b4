//! The event stream of one generation (DESIGN §6).
//!
//! Every prompt has one ordered log of [`StreamEvent`]s: `seq` is gap-free from 1 and
//! assigned by the event log when an event is appended; the payload is an [`EventKind`],
//! a `type`-tagged union. On the wire (SSE) an event is
//!
//! ```text
//! id: <seq>
//! event: <type>
//! data: {"type":"<type>","seq":<seq>,"prompt_id":"…", …fields}
//! ```
//!
//! `ping` is the one kind that is never stored and carries no `id`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

/// One stored event of a prompt's log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StreamEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    #[serde(flatten)]
    pub kind: EventKind,
}

impl StreamEvent {
    /// The SSE `event:` name (the `type` field).
    pub fn type_name(&self) -> &'static str {
        self.kind.type_name()
    }
}

/// The states of a prompt (DESIGN §4), as readers see them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PromptState {
    Created,
    InProgress,
    WaitingForTools,
    Completed,
    Error,
    Failed,
    Canceled,
}

impl PromptState {
    /// The wire name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::InProgress => "in_progress",
            Self::WaitingForTools => "waiting_for_tools",
            Self::Completed => "completed",
            Self::Error => "error",
            Self::Failed => "failed",
            Self::Canceled => "canceled",
        }
    }

    /// `completed`, `failed`, `error` and `canceled` end a job.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Error | Self::Failed | Self::Canceled
        )
    }
}

/// The kind of a content block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BlockType {
    Text,
    Thinking,
    ToolCall,
    Attachment,
}

/// Why a generation stopped with an error.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ErrorCode {
    UpstreamError,
    UpstreamStall,
    UnknownModel,
    RateLimited,
    ToolError,
    Timeout,
    InternalError,
}

impl ErrorCode {
    /// The wire name (also what `prompts.error_code` stores).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::UpstreamError => "upstream_error",
            Self::UpstreamStall => "upstream_stall",
            Self::UnknownModel => "unknown_model",
            Self::RateLimited => "rate_limited",
            Self::ToolError => "tool_error",
            Self::Timeout => "timeout",
            Self::InternalError => "internal_error",
        }
    }

    /// The code of a wire name; anything unknown is an upstream error.
    pub fn from_name(name: &str) -> Self {
        [
            Self::UpstreamStall,
            Self::UnknownModel,
            Self::RateLimited,
            Self::ToolError,
            Self::Timeout,
            Self::InternalError,
        ]
        .into_iter()
        .find(|code| code.as_str() == name)
        .unwrap_or(Self::UpstreamError)
    }
}

/// Token counts of a turn (summed over its LLM calls).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// A suggested value the user can pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedValue {
    pub label: String,
    pub value: String,
}

/// A suggested action (a button), handled by the client or the server.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct SuggestedAction {
    pub label: String,
    pub action: String,
    pub handler: ActionHandler,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub style: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ActionHandler {
    Client,
    Server,
}

/// A structured payload attached to a response (validated against the payload registry).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CustomPayload {
    #[serde(rename = "type")]
    pub kind: String,
    pub data: Value,
}

/// One tool call of the turn, as the client sees it in the final payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolHistoryEntry {
    pub tool_name: String,
    pub input: Value,
    pub output: Value,
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

/// What happened, by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// Every state transition of the prompt.
    PromptState {
        state: PromptState,
        attempt: u32,
    },
    /// A human-readable progress note, e.g. "Thinking…".
    Status {
        message: String,
    },
    BlockStart {
        index: u32,
        block_type: BlockType,
    },
    /// Text of a text block; may carry a `[[tool:N]]` marker.
    TextDelta {
        index: u32,
        text: String,
    },
    /// Reasoning text from the provider's reasoning fields.
    ThinkingDelta {
        index: u32,
        text: String,
    },
    BlockStop {
        index: u32,
    },
    ToolStart {
        index: u32,
        block_index: u32,
        tool: String,
        tool_use_id: String,
        input: Value,
    },
    ToolProgress {
        index: u32,
        tool: String,
        stage: String,
        message: String,
        progress: f64,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    ToolComplete {
        index: u32,
        tool: String,
        tool_use_id: String,
        state: String,
        output: Value,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        payload: Option<Value>,
        duration_ms: u64,
    },
    /// The turn starts over (a new attempt); readers drop this prompt's partial blocks.
    Retry {
        attempt: u32,
        reason: String,
    },
    /// Terminal: the turn finished.
    Complete {
        message_id: Uuid,
        payload: ChatResponsePayload,
        usage: Usage,
        model: String,
        vendor: String,
        latency_ms: u64,
        blocked: bool,
        /// An after_ai module replaced text that had already been streamed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        replaced: bool,
    },
    /// Terminal: the turn failed.
    Error {
        code: ErrorCode,
        message: String,
        retryable: bool,
    },
    /// Terminal: the turn was cancelled.
    Cancelled,
    /// Keep-alive; never stored.
    Ping {
        ts: i64,
    },
}

impl EventKind {
    /// `complete`, `error` and `cancelled` end a log.
    pub fn is_terminal(&self) -> bool {
        matches!(
            self,
            Self::Complete { .. } | Self::Error { .. } | Self::Cancelled
        )
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Self::PromptState { .. } => "prompt_state",
            Self::Status { .. } => "status",
            Self::BlockStart { .. } => "block_start",
            Self::TextDelta { .. } => "text_delta",
            Self::ThinkingDelta { .. } => "thinking_delta",
            Self::BlockStop { .. } => "block_stop",
            Self::ToolStart { .. } => "tool_start",
            Self::ToolProgress { .. } => "tool_progress",
            Self::ToolComplete { .. } => "tool_complete",
            Self::Retry { .. } => "retry",
            Self::Complete { .. } => "complete",
            Self::Error { .. } => "error",
            Self::Cancelled => "cancelled",
            Self::Ping { .. } => "ping",
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn events_serialize_flat_with_type_seq_and_prompt_id() {
        let prompt_id = Uuid::now_v7();
        let event = StreamEvent {
            seq: 3,
            prompt_id,
            kind: EventKind::TextDelta {
                index: 0,
                text: "Hi".into(),
            },
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(
            json,
            json!({"type": "text_delta", "seq": 3, "prompt_id": prompt_id, "index": 0, "text": "Hi"})
        );
        let back: StreamEvent = serde_json::from_value(json).unwrap();
        assert_eq!(back, event);
        assert_eq!(back.type_name(), "text_delta");
    }

    #[test]
    fn every_type_name_matches_the_serde_tag() {
        let kinds = [
            EventKind::PromptState {
                state: PromptState::InProgress,
                attempt: 1,
            },
            EventKind::Status {
                message: "Thinking…".into(),
            },
            EventKind::BlockStart {
                index: 0,
                block_type: BlockType::Thinking,
            },
            EventKind::ThinkingDelta {
                index: 0,
                text: "hm".into(),
            },
            EventKind::BlockStop { index: 0 },
            EventKind::Retry {
                attempt: 2,
                reason: "worker lost".into(),
            },
            EventKind::Error {
                code: ErrorCode::UpstreamStall,
                message: "no token for 15 s".into(),
                retryable: true,
            },
            EventKind::Cancelled,
            EventKind::Ping { ts: 1 },
            EventKind::Complete {
                message_id: Uuid::now_v7(),
                payload: ChatResponsePayload {
                    message: "done".into(),
                    ..Default::default()
                },
                usage: Usage {
                    input_tokens: 3,
                    output_tokens: 5,
                },
                model: "m".into(),
                vendor: "v".into(),
                latency_ms: 10,
                blocked: false,
                replaced: false,
            },
        ];
        for kind in kinds {
            let json = serde_json::to_value(&kind).unwrap();
            assert_eq!(json["type"], kind.type_name(), "{json}");
            let back: EventKind = serde_json::from_value(json).unwrap();
            assert_eq!(back, kind);
        }
        assert!(EventKind::Cancelled.is_terminal());
        assert!(!EventKind::BlockStop { index: 1 }.is_terminal());
        assert!(PromptState::Failed.is_terminal() && !PromptState::WaitingForTools.is_terminal());
        for code in [
            ErrorCode::UpstreamStall,
            ErrorCode::RateLimited,
            ErrorCode::InternalError,
            ErrorCode::UpstreamError,
        ] {
            assert_eq!(serde_json::to_value(code).unwrap(), code.as_str());
            assert_eq!(ErrorCode::from_name(code.as_str()), code);
        }
        for state in [PromptState::InProgress, PromptState::Canceled] {
            assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
        }
    }
}
