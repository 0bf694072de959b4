//! The event stream of one generation (DESIGN §6).
//!
//! Every prompt has one ordered log of [`StreamEvent`]s: `seq` is assigned by the event
//! log when an event is appended, gap-free from 1 — a log lost with its backend starts
//! again above every seq it gave out, and a feed rebuilt from the database numbers on
//! after it, behind a [`EventKind::Reset`] — so a reader's last seq always says where it
//! is; the payload is an [`EventKind`], a `type`-tagged union. On the wire (SSE) an event is
//!
//! ```text
//! id: <seq>
//! event: <type>
//! data: {"type":"<type>","seq":<seq>,"prompt_id":"…", …fields}
//! ```
//!
//! `ping` and `reconnect` are never stored and carry no `id`; `reset` is never stored
//! either, but has its place in a rebuilt feed's numbering.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::error::ErrorCode;

mod extras;
mod payload;
pub use extras::{Fallback, FallbackReason, Moderation, ResponseExtras, StopReason};
pub use payload::{
    ActionHandler, ChatResponsePayload, CustomPayload, SuggestedAction, SuggestedValue,
    ToolHistoryEntry,
};

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

/// Derives for the enums shared by every layer: serde (the wire and `prompts.input`),
/// sea-orm's `DeriveActiveEnum` behind the `db` feature (stored as `varchar(24)`) and
/// poem-openapi's `Enum` behind the `openapi` feature (documented in the API). Every
/// value is the snake_case word DESIGN.md uses, in JSON, in the database and in logs.
macro_rules! shared_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident { $( $(#[$vmeta:meta])* $variant:ident = $value:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
        #[serde(rename_all = "snake_case")]
        #[cfg_attr(feature = "db", derive(sea_orm::EnumIter, sea_orm::DeriveActiveEnum))]
        #[cfg_attr(
            feature = "db",
            sea_orm(rs_type = "String", db_type = "String(sea_orm::sea_query::StringLen::N(24))")
        )]
        #[cfg_attr(feature = "openapi", derive(poem_openapi::Enum))]
        #[cfg_attr(feature = "openapi", oai(rename_all = "snake_case"))]
        pub enum $name {
            $(
                $(#[$vmeta])*
                #[cfg_attr(feature = "db", sea_orm(string_value = $value))]
                $variant,
            )+
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [Self] = &[$(Self::$variant),+];

            /// The wire (and stored) name.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $value),+ }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
pub(crate) use shared_enum;

shared_enum! {
    /// The states of a prompt (one generation), DESIGN §4.
    pub enum PromptState {
        Created = "created",
        InProgress = "in_progress",
        WaitingForTools = "waiting_for_tools",
        Completed = "completed",
        Error = "error",
        Failed = "failed",
        Canceled = "canceled",
    }
}

impl PromptState {
    /// `completed`, `failed`, `error` and `canceled` end a job.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            Self::Completed | Self::Error | Self::Failed | Self::Canceled
        )
    }

    /// `failed` and `error` can be resumed (`POST /v1/prompts/{id}/resume`).
    pub fn is_resumable(self) -> bool {
        matches!(self, Self::Error | Self::Failed)
    }
}

shared_enum! {
    /// How one provider call failed (`ai_usage.error`; absent: it did not fail), for the
    /// providers' error rates and last errors (`GET /v1/admin/providers`).
    pub enum CallError {
        /// The provider could not be reached (connect, TLS, DNS).
        Unreachable = "unreachable",
        /// An HTTP 5xx.
        ServerError = "server_error",
        /// An HTTP 429.
        RateLimited = "rate_limited",
        /// Another HTTP 4xx: the provider refused the request.
        Refused = "refused",
        /// The stream broke or carried something unreadable.
        BrokenStream = "broken_stream",
        /// Nothing came within the first-token timeout.
        NoFirstToken = "no_first_token",
        /// No token for the stall window after the first.
        Stalled = "stalled",
    }
}

shared_enum! {
    /// The kind of a content block.
    pub enum BlockType {
        Text = "text",
        Thinking = "thinking",
        ToolCall = "tool_call",
        Attachment = "attachment",
    }
}

shared_enum! {
    /// The life of one function call (`tool_calls.state`, `tool_complete.state`).
    pub enum ToolCallState {
        Created = "created",
        Running = "running",
        /// It ran and returned a result.
        Success = "success",
        /// It could not run or failed: unknown function, invalid arguments, permission
        /// denied, an error or a timeout. The model was told why.
        Error = "error",
        /// The turn was cancelled while it ran (or while it waited for approval).
        Canceled = "canceled",
        /// It waits for the session's owner to approve or deny it; the turn is
        /// suspended meanwhile (no worker, no lease).
        AwaitingApproval = "awaiting_approval",
        /// Approved, to run when the turn resumes.
        Approved = "approved",
        /// Denied by the session's owner, or not decided in time: it never ran. The model
        /// was told why.
        Denied = "denied",
        /// A function of the caller's own (a client function): it waits for the caller
        /// to run it and post its result; the turn is suspended meanwhile (no worker, no
        /// lease).
        AwaitingClient = "awaiting_client",
    }
}

impl ToolCallState {
    /// Whether a call in this state holds its turn suspended: it waits for its user's
    /// approval or for its caller's result.
    pub fn waits(self) -> bool {
        matches!(self, Self::AwaitingApproval | Self::AwaitingClient)
    }
}

/// Token counts of a turn (summed over its LLM calls), or of one call, by kind
/// (DESIGN §14). `input_tokens` counts every input token, `cached_input_tokens` and
/// `cache_write_tokens` are the parts of it read from and written to the provider's
/// prompt cache; `output_tokens` counts every output token, `reasoning_tokens` the part
/// of it the model spent thinking. A kind its provider did not report is 0. Events of
/// an earlier version have only the first two: the others read as 0.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Usage {
    pub input_tokens: u64,
    pub output_tokens: u64,
    #[serde(default)]
    pub cached_input_tokens: u64,
    #[serde(default)]
    pub cache_write_tokens: u64,
    #[serde(default)]
    pub reasoning_tokens: u64,
}

impl Usage {
    /// A call's counts with only the two kinds every provider reports.
    pub fn plain(input_tokens: u64, output_tokens: u64) -> Self {
        Self {
            input_tokens,
            output_tokens,
            ..Self::default()
        }
    }

    /// The input tokens neither read from nor written to a cache.
    pub fn uncached_input_tokens(&self) -> u64 {
        self.input_tokens
            .saturating_sub(self.cached_input_tokens)
            .saturating_sub(self.cache_write_tokens)
    }
}

impl std::ops::Add for Usage {
    type Output = Self;

    fn add(self, other: Self) -> Self {
        Self {
            input_tokens: self.input_tokens + other.input_tokens,
            output_tokens: self.output_tokens + other.output_tokens,
            cached_input_tokens: self.cached_input_tokens + other.cached_input_tokens,
            cache_write_tokens: self.cache_write_tokens + other.cache_write_tokens,
            reasoning_tokens: self.reasoning_tokens + other.reasoning_tokens,
        }
    }
}

/// What happened, by `type`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum EventKind {
    /// Every state transition of the prompt.
    PromptState {
        state: PromptState,
        attempt: u32,
        /// On `in_progress`: the user message the turn answers (saved with this id when
        /// the turn writes it), so a client can place the answer under it.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user_message_id: Option<Uuid>,
        /// On `in_progress`, when the turn writes a new user message: the message it
        /// follows in the session's tree (none: a first message, or a regenerate, whose
        /// user message is in place already).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_id: Option<Uuid>,
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
        state: ToolCallState,
        output: Value,
        /// The call's result as a payload of the function's payload type.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        payload: Option<CustomPayload>,
        duration_ms: u64,
    },
    /// A function call waits for the session's owner to approve it (`POST
    /// /v1/prompts/{prompt_id}/calls/{call_id}/approve`, or `…/deny`); the turn is
    /// suspended until then (the prompt stays `waiting_for_tools`) and resumes as a new
    /// attempt. Not decided by `expires_at`, the call is denied.
    ApprovalRequested {
        /// The call's `N` (`[[tool:N]]`), as in `tool_start`.
        index: u32,
        tool: String,
        tool_use_id: String,
        /// The call to approve or deny.
        call_id: Uuid,
        input: Value,
        expires_at: chrono::DateTime<chrono::Utc>,
    },
    /// The model called one of the caller's own functions (the turn's
    /// `client_functions`): the caller runs it and posts its result (`POST
    /// /v1/prompts/{prompt_id}/calls/{call_id}/result`); the turn is suspended until then
    /// (the prompt stays `waiting_for_tools`) and resumes as a new attempt. No result by
    /// `expires_at`: the call fails and the model is told.
    ClientCallRequested {
        /// The call's `N` (`[[tool:N]]`), as in `tool_start`.
        index: u32,
        tool: String,
        tool_use_id: String,
        /// The call whose result to post.
        call_id: Uuid,
        /// The arguments the model wrote (JSON that fits the function's parameters).
        input: Value,
        expires_at: chrono::DateTime<chrono::Utc>,
    },
    /// The model asked for failed before answering (or may not be called); the next
    /// model of its fallback chain answers instead. Nothing was streamed by `from`.
    Fallback {
        from: String,
        to: String,
        reason: FallbackReason,
    },
    /// The turn starts over (a new attempt); readers drop this prompt's partial blocks.
    Retry {
        attempt: u32,
        reason: String,
    },
    /// Terminal: the turn finished.
    Complete {
        message_id: Uuid,
        /// The message the answer follows in the session's tree: the user message it
        /// answers (absent for a turn recorded before the tree).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        parent_id: Option<Uuid>,
        payload: ChatResponsePayload,
        usage: Usage,
        model: String,
        vendor: String,
        latency_ms: u64,
        blocked: bool,
        /// The category of the block (when `blocked`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        block_category: Option<String>,
        /// An after_ai module replaced text that had already been streamed.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        replaced: bool,
        /// The model asked for, when another one of its fallback chain answered.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback_from: Option<String>,
        /// Why the model asked for did not answer (with `fallback_from`).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        fallback_reason: Option<FallbackReason>,
        /// The answer was cut before the model was done (absent: it finished).
        #[serde(default, skip_serializing_if = "Option::is_none")]
        stop_reason: Option<StopReason>,
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
    /// The server is shutting down: the feed ends here, the turn does not. Reconnect
    /// after `retry_ms` with the last `id` received as `Last-Event-ID` (another server, or
    /// this one restarted) to get what follows. Never stored.
    Reconnect {
        retry_ms: u64,
    },
    /// The events that follow replace everything the reader holds of this prompt: drop
    /// its blocks and state and build them again. The first event of a feed rebuilt from
    /// the database once the event log is gone (after its retention); it has a `seq`,
    /// above every seq the prompt's log gave out, like the rebuilt events after it, but
    /// it is never stored.
    Reset,
}

impl EventKind {
    /// A `prompt_state` event that names no message.
    pub fn state(state: PromptState, attempt: u32) -> Self {
        Self::PromptState {
            state,
            attempt,
            user_message_id: None,
            parent_id: None,
        }
    }

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
            Self::ApprovalRequested { .. } => "approval_requested",
            Self::ClientCallRequested { .. } => "client_call_requested",
            Self::Fallback { .. } => "fallback",
            Self::Retry { .. } => "retry",
            Self::Complete { .. } => "complete",
            Self::Error { .. } => "error",
            Self::Cancelled => "cancelled",
            Self::Ping { .. } => "ping",
            Self::Reconnect { .. } => "reconnect",
            Self::Reset => "reset",
        }
    }
}

#[cfg(test)]
mod tests;
