//! The stream events of DESIGN §6 as OpenAPI schemas, so that generated clients know
//! every event type.
//!
//! The events themselves are defined once, in `parley-protocol`, and serialized with
//! serde on the hot path. This module mirrors them as poem-openapi objects only to
//! describe them; [`WireEvent`] carries a protocol event and presents this schema, and the
//! tests check that every protocol event parses as its documented schema.

use std::borrow::Cow;

use parley_protocol::events::StreamEvent;
use poem_openapi::{
    Enum, Object, Union,
    registry::{MetaSchemaRef, Registry},
    types::{ParseFromJSON, ParseResult, ToJSON, Type},
};
use serde_json::Value;
use uuid::Uuid;

/// One event of a prompt's stream, as sent in an SSE `data:` line. `seq` and
/// `prompt_id` are on every event but `ping`.
pub struct WireEvent(pub StreamEvent);

impl Type for WireEvent {
    const IS_REQUIRED: bool = true;
    type RawValueType = Self;
    type RawElementValueType = Self;

    fn name() -> Cow<'static, str> {
        StreamEventDoc::name()
    }

    fn schema_ref() -> MetaSchemaRef {
        StreamEventDoc::schema_ref()
    }

    fn register(registry: &mut Registry) {
        StreamEventDoc::register(registry);
    }

    fn as_raw_value(&self) -> Option<&Self::RawValueType> {
        Some(self)
    }

    fn raw_element_iter<'a>(
        &'a self,
    ) -> Box<dyn Iterator<Item = &'a Self::RawElementValueType> + 'a> {
        Box::new(self.as_raw_value().into_iter())
    }
}

impl ToJSON for WireEvent {
    fn to_json(&self) -> Option<Value> {
        serde_json::to_value(&self.0).ok()
    }
}

impl ParseFromJSON for WireEvent {
    fn parse_from_json(value: Option<Value>) -> ParseResult<Self> {
        serde_json::from_value(value.unwrap_or_default())
            .map(WireEvent)
            .map_err(poem_openapi::types::ParseError::custom)
    }
}

/// Every event type, told apart by `type`.
#[derive(Debug, Union)]
#[oai(discriminator_name = "type", one_of)]
pub enum StreamEventDoc {
    #[oai(mapping = "prompt_state")]
    PromptState(PromptStateEvent),
    #[oai(mapping = "status")]
    Status(StatusEvent),
    #[oai(mapping = "block_start")]
    BlockStart(BlockStartEvent),
    #[oai(mapping = "text_delta")]
    TextDelta(DeltaEvent),
    #[oai(mapping = "thinking_delta")]
    ThinkingDelta(ThinkingDeltaEvent),
    #[oai(mapping = "block_stop")]
    BlockStop(BlockStopEvent),
    #[oai(mapping = "tool_start")]
    ToolStart(ToolStartEvent),
    #[oai(mapping = "tool_progress")]
    ToolProgress(ToolProgressEvent),
    #[oai(mapping = "tool_complete")]
    ToolComplete(ToolCompleteEvent),
    #[oai(mapping = "retry")]
    Retry(RetryEvent),
    #[oai(mapping = "complete")]
    Complete(CompleteEvent),
    #[oai(mapping = "error")]
    Error(ErrorEvent),
    #[oai(mapping = "cancelled")]
    Cancelled(CancelledEvent),
    #[oai(mapping = "ping")]
    Ping(PingEvent),
}

/// The states of a prompt.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum PromptStateDoc {
    Created,
    InProgress,
    WaitingForTools,
    Completed,
    Error,
    Failed,
    Canceled,
}

/// The kinds of content block.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum BlockTypeDoc {
    Text,
    Thinking,
    ToolCall,
    Attachment,
}

/// Why a generation failed.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum ErrorCodeDoc {
    UpstreamError,
    UpstreamStall,
    UnknownModel,
    RateLimited,
    ToolError,
    Timeout,
    InternalError,
}

/// Every state transition of the prompt.
#[derive(Debug, Object)]
pub struct PromptStateEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub state: PromptStateDoc,
    pub attempt: u32,
}

/// A progress note for people, e.g. "Thinking…".
#[derive(Debug, Object)]
pub struct StatusEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub message: String,
}

/// A content block starts.
#[derive(Debug, Object)]
pub struct BlockStartEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub block_type: BlockTypeDoc,
}

/// Text of a text block (may carry a `[[tool:N]]` marker). Several tokens may come in
/// one event.
#[derive(Debug, Object)]
pub struct DeltaEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub text: String,
}

/// Reasoning text of a thinking block.
#[derive(Debug, Object)]
pub struct ThinkingDeltaEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub text: String,
}

/// A content block is complete.
#[derive(Debug, Object)]
pub struct BlockStopEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
}

/// A function call starts.
#[derive(Debug, Object)]
pub struct ToolStartEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub block_index: u32,
    pub tool: String,
    pub tool_use_id: String,
    pub input: Value,
}

/// Progress of a running function call.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ToolProgressEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub tool: String,
    pub stage: String,
    pub message: String,
    /// From 0 to 1.
    pub progress: f64,
    pub data: Option<Value>,
}

/// A function call finished.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct ToolCompleteEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub index: u32,
    pub tool: String,
    pub tool_use_id: String,
    pub state: String,
    pub output: Value,
    pub payload: Option<Value>,
    pub duration_ms: u64,
}

/// The turn starts over; drop this prompt's partial blocks.
#[derive(Debug, Object)]
pub struct RetryEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub attempt: u32,
    pub reason: String,
}

/// Token counts of a turn.
#[derive(Debug, Object)]
pub struct UsageDoc {
    pub input_tokens: u64,
    pub output_tokens: u64,
}

/// Terminal: the turn finished.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct CompleteEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub message_id: Uuid,
    /// The final response (ChatResponsePayload: message, custom_payload,
    /// suggested_values, suggested_actions, tool_history).
    pub payload: Value,
    pub usage: UsageDoc,
    pub model: String,
    pub vendor: String,
    pub latency_ms: u64,
    pub blocked: bool,
    /// Text already streamed was replaced after the fact; `payload.message` is final.
    pub replaced: Option<bool>,
}

/// Terminal: the turn failed.
#[derive(Debug, Object)]
pub struct ErrorEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub code: ErrorCodeDoc,
    pub message: String,
    /// Whether `POST /v1/prompts/{id}/resume` may succeed.
    pub retryable: bool,
}

/// Terminal: the turn was cancelled.
#[derive(Debug, Object)]
pub struct CancelledEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
}

/// Keep-alive, every 8 s on each open connection; not stored, no `id:` line.
#[derive(Debug, Object)]
pub struct PingEvent {
    /// Unix time in milliseconds.
    pub ts: i64,
}

#[cfg(test)]
mod tests {
    use parley_protocol::events::{
        BlockType, ChatResponsePayload, ErrorCode, EventKind, PromptState, Usage,
    };

    use super::*;

    #[test]
    fn every_protocol_event_fits_its_documented_schema() {
        let prompt_id = Uuid::now_v7();
        let kinds = vec![
            EventKind::PromptState {
                state: PromptState::WaitingForTools,
                attempt: 2,
            },
            EventKind::Status {
                message: "Thinking…".into(),
            },
            EventKind::BlockStart {
                index: 0,
                block_type: BlockType::ToolCall,
            },
            EventKind::TextDelta {
                index: 0,
                text: "Hi".into(),
            },
            EventKind::ThinkingDelta {
                index: 1,
                text: "hmm".into(),
            },
            EventKind::BlockStop { index: 0 },
            EventKind::ToolStart {
                index: 1,
                block_index: 2,
                tool: "getCurrentTime".into(),
                tool_use_id: "c1".into(),
                input: serde_json::json!({}),
            },
            EventKind::ToolProgress {
                index: 1,
                tool: "t".into(),
                stage: "s".into(),
                message: "m".into(),
                progress: 0.5,
                data: None,
            },
            EventKind::ToolComplete {
                index: 1,
                tool: "t".into(),
                tool_use_id: "c1".into(),
                state: "success".into(),
                output: serde_json::json!(1),
                payload: None,
                duration_ms: 3,
            },
            EventKind::Retry {
                attempt: 2,
                reason: "r".into(),
            },
            EventKind::Complete {
                message_id: Uuid::now_v7(),
                payload: ChatResponsePayload {
                    message: "done".into(),
                    ..Default::default()
                },
                usage: Usage {
                    input_tokens: 1,
                    output_tokens: 2,
                },
                model: "m".into(),
                vendor: "v".into(),
                latency_ms: 5,
                blocked: false,
                replaced: true,
            },
            EventKind::Error {
                code: ErrorCode::RateLimited,
                message: "slow down".into(),
                retryable: true,
            },
            EventKind::Cancelled,
        ];
        for (i, kind) in kinds.into_iter().enumerate() {
            let event = StreamEvent {
                seq: i as u64 + 1,
                prompt_id,
                kind,
            };
            let json = serde_json::to_value(&event).unwrap();
            let doc = StreamEventDoc::parse_from_json(Some(json.clone())).unwrap_or_else(|err| {
                panic!(
                    "{json} does not fit the documented schema: {}",
                    err.into_message()
                )
            });
            assert_eq!(
                doc.to_json().unwrap(),
                json,
                "documented and real forms agree"
            );
        }
        let ping = serde_json::json!({"type": "ping", "ts": 1});
        assert!(StreamEventDoc::parse_from_json(Some(ping)).is_ok());
    }
}
