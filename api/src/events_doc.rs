//! The stream events of DESIGN §6 as OpenAPI schemas, so that generated clients know
//! every event type and the payload of a finished turn.
//!
//! The events themselves are defined once, in `parley-protocol`, and serialized with
//! serde on the hot path. This module mirrors their shapes as poem-openapi objects only
//! to describe them (the enums inside them are the protocol's own, through its `openapi`
//! feature); the tests check that every protocol event, and a payload with every field,
//! parses as its documented schema.

use parley_protocol::error::ErrorCode;
use parley_protocol::events::{
    ActionHandler, BlockType, ChatResponsePayload, FallbackReason, PromptState, StopReason,
    ToolCallState, Usage,
};
use poem_openapi::{Enum, Object, Union};
use serde_json::Value;
use uuid::Uuid;

use crate::types::Documented;

/// A turn's final response as sent (serde), documented as [`ChatResponsePayloadDoc`].
pub type PayloadField = Documented<ChatResponsePayload, ChatResponsePayloadDoc>;
/// A turn's token counts as sent, documented as [`UsageDoc`].
pub type UsageField = Documented<Usage, UsageDoc>;

/// Every event type, told apart by `type`.
#[derive(Debug, Union)]
#[oai(rename = "StreamEvent", discriminator_name = "type", one_of)]
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
    #[oai(mapping = "approval_requested")]
    ApprovalRequested(ApprovalRequestedPromptEvent),
    #[oai(mapping = "client_call_requested")]
    ClientCallRequested(ClientCallRequestedEvent),
    #[oai(mapping = "fallback")]
    Fallback(FallbackEvent),
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
    #[oai(mapping = "reconnect")]
    Reconnect(ReconnectEvent),
    #[oai(mapping = "reset")]
    Reset(ResetEvent),
}

/// Every state transition of the prompt.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct PromptStateEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub state: PromptState,
    pub attempt: u32,
    /// On `in_progress`: the user message the turn answers (saved with this id when the
    /// turn writes it), so a client can place the answer under it.
    pub user_message_id: Option<Uuid>,
    /// On `in_progress`, when the turn writes a new user message: the message it follows
    /// in the session's tree (absent: a first message, or a regenerate's user message,
    /// which is in place already).
    pub parent_id: Option<Uuid>,
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
    pub block_type: BlockType,
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
    pub state: ToolCallState,
    pub output: Value,
    /// The result as a payload of the function's payload type (`GET /v1/payload-types`).
    pub payload: Option<CustomPayloadDoc>,
    pub duration_ms: u64,
}

/// A function call waits for the session's owner's approval: approve it (`POST
/// /v1/prompts/{prompt_id}/calls/{call_id}/approve`, optionally with edited input) or
/// deny it (`…/deny`) before `expires_at`, after which it is denied. The turn is
/// suspended meanwhile (`prompt_state: waiting_for_tools`; the feed stays open) and
/// resumes as a new attempt (`retry`) once every waiting call is decided.
#[derive(Debug, Object)]
#[oai(rename = "ApprovalRequestedPromptEvent")]
pub struct ApprovalRequestedPromptEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    /// The call's `N`, as in `tool_start`.
    pub index: u32,
    pub tool: String,
    pub tool_use_id: String,
    /// The call to approve or deny.
    pub call_id: Uuid,
    pub input: Value,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The model called one of the turn's `client_functions`: run it and post its result
/// (`POST /v1/prompts/{prompt_id}/calls/{call_id}/result`) before `expires_at`, after
/// which the call fails and the model is told. The turn is suspended meanwhile
/// (`prompt_state: waiting_for_tools`; the feed stays open) and resumes as a new attempt
/// (`retry`) once no call of it waits.
#[derive(Debug, Object)]
#[oai(rename = "ClientCallRequestedEvent")]
pub struct ClientCallRequestedEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    /// The call's `N`, as in `tool_start`.
    pub index: u32,
    /// The function's name.
    pub tool: String,
    pub tool_use_id: String,
    /// The call whose result to post.
    pub call_id: Uuid,
    /// The arguments (JSON that fits the function's `parameters`).
    pub input: Value,
    pub expires_at: chrono::DateTime<chrono::Utc>,
}

/// The turn starts over; drop this prompt's partial blocks.
#[derive(Debug, Object)]
pub struct RetryEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub attempt: u32,
    pub reason: String,
}

/// Token counts of a turn, summed over its LLM calls, by kind. `input_tokens` and
/// `output_tokens` count every token; `cached_input_tokens` and `cache_write_tokens` are
/// the parts of the input read from and written to the provider's prompt cache,
/// `reasoning_tokens` the part of the output the model spent thinking (0 when the
/// provider did not report them).
#[derive(Debug, Object)]
#[oai(rename = "Usage")]
pub struct UsageDoc {
    pub input_tokens: u64,
    pub output_tokens: u64,
    pub cached_input_tokens: u64,
    pub cache_write_tokens: u64,
    pub reasoning_tokens: u64,
}

/// The final response of a turn (seed `ChatResponsePayload`).
#[derive(Debug, Object)]
#[oai(rename = "ChatResponsePayload", skip_serializing_if_is_none)]
pub struct ChatResponsePayloadDoc {
    /// The answer's text.
    pub message: String,
    /// A structured payload (validated against the payload registry).
    pub custom_payload: Option<CustomPayloadDoc>,
    /// Values the user can pick.
    pub suggested_values: Option<Vec<SuggestedValueDoc>>,
    /// Buttons the client shows.
    pub suggested_actions: Option<Vec<SuggestedActionDoc>>,
    /// The function calls of the turn, in the order of their markers.
    pub tool_history: Option<Vec<ToolHistoryEntryDoc>>,
}

/// A structured payload attached to a response.
#[derive(Debug, Object)]
#[oai(rename = "CustomPayload")]
pub struct CustomPayloadDoc {
    /// The payload type's name in the registry.
    #[oai(rename = "type")]
    pub kind: String,
    pub data: Value,
}

/// A value the user can pick.
#[derive(Debug, Object)]
#[oai(rename = "SuggestedValue")]
pub struct SuggestedValueDoc {
    pub label: String,
    pub value: String,
}

/// A suggested action (a button), handled by the client or the server.
#[derive(Debug, Object)]
#[oai(rename = "SuggestedAction", skip_serializing_if_is_none)]
pub struct SuggestedActionDoc {
    pub label: String,
    pub action: String,
    pub handler: ActionHandler,
    pub data: Option<Value>,
    pub style: Option<String>,
}

/// One function call of a turn; entry N is the call of the `[[tool:N]]` marker.
#[derive(Debug, Object)]
#[oai(rename = "ToolHistoryEntry")]
pub struct ToolHistoryEntryDoc {
    pub tool_name: String,
    pub input: Value,
    pub output: Value,
    pub status: ToolCallState,
    pub duration_ms: u64,
}

/// Terminal: the turn finished.
#[derive(Debug, Object)]
#[oai(skip_serializing_if_is_none)]
pub struct CompleteEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub message_id: Uuid,
    /// The message the answer follows in the session's tree: the user message it answers.
    pub parent_id: Option<Uuid>,
    /// The final response.
    pub payload: ChatResponsePayloadDoc,
    pub usage: UsageDoc,
    pub model: String,
    pub vendor: String,
    pub latency_ms: u64,
    /// A module blocked the message or the answer; `payload.message` is the module's
    /// direct response.
    pub blocked: bool,
    /// The category of the block (e.g. `self_harm`), when `blocked`.
    pub block_category: Option<String>,
    /// Text already streamed was replaced after the fact; `payload.message` is final.
    pub replaced: Option<bool>,
    /// The model asked for, when another model of its fallback chain answered (`model`).
    pub fallback_from: Option<String>,
    /// Why the model asked for did not answer (with `fallback_from`).
    pub fallback_reason: Option<FallbackReason>,
    /// `max_tokens`: the answer was cut at its token limit (absent: the model finished).
    pub stop_reason: Option<StopReason>,
}

/// The model asked for failed before answering, or may not be called now (its
/// provider's breaker, or this user's, is open); the next model of its fallback chain
/// answers. `from` streamed nothing.
#[derive(Debug, Object)]
pub struct FallbackEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub from: String,
    pub to: String,
    pub reason: FallbackReason,
}

/// Terminal: the turn failed.
#[derive(Debug, Object)]
pub struct ErrorEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
    pub code: ErrorCode,
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

/// The server is shutting down: the feed ends after this event, the turn goes on.
/// Reconnect after `retry_ms` (also the SSE `retry:` field) with the last `id` received
/// as `Last-Event-ID`, to this service again (another instance, or this one restarted).
/// Not stored, no `id:` line.
#[derive(Debug, Object)]
pub struct ReconnectEvent {
    pub retry_ms: u64,
}

/// The events that follow replace everything the reader holds of this prompt: drop its
/// blocks and state and build them again from what follows. It opens a feed rebuilt from
/// the database once the prompt's event log is gone (after its retention), when the reader
/// may hold part of the original events. Its `seq` and those after it are above every seq
/// the original feed gave out, so `Last-Event-ID` goes on working; it is never stored.
#[derive(Debug, Object)]
pub struct ResetEvent {
    pub seq: u64,
    pub prompt_id: Uuid,
}

/// The `event:` names of the feed: each is the `type` of the event in `data`.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum EventName {
    PromptState,
    Status,
    BlockStart,
    TextDelta,
    ThinkingDelta,
    BlockStop,
    ToolStart,
    ToolProgress,
    ToolComplete,
    ApprovalRequested,
    ClientCallRequested,
    Fallback,
    Retry,
    Complete,
    Error,
    Cancelled,
    Ping,
    Reconnect,
    Reset,
}

/// One Server-Sent Event of a prompt's feed, as an SSE client sees it.
#[derive(Debug, Object)]
pub struct SseEvent {
    /// The event's `seq` (absent on `ping`): send it back as `Last-Event-ID` to resume.
    #[oai(validator(pattern = r"^[0-9]+$"))]
    pub id: Option<String>,
    pub event: EventName,
    /// A `StreamEvent` as JSON (see that schema), whose `type` is `event`.
    pub data: String,
}

#[cfg(test)]
mod tests;
