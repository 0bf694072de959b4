//! The events of the per-user feed (`GET /v1/feed`, DESIGN §13) as OpenAPI schemas,
//! mirroring `parley_protocol::feed` the way `events_doc` mirrors a prompt's events:
//! the protocol's types are what is sent; these only describe them, and the tests check
//! that every protocol event parses as its documented schema.

use crate::routes::views::SessionState;
use chrono::{DateTime, Utc};
use parley_protocol::events::PromptState;
use poem_openapi::{Enum, Object, Union};
use serde_json::Value;
use uuid::Uuid;

/// Every event type of the user feed, told apart by `type`.
#[derive(Debug, Union)]
#[oai(rename = "UserEvent", discriminator_name = "type", one_of)]
pub enum UserEventDoc {
    #[oai(mapping = "session_created")]
    SessionCreated(SessionCreatedEvent),
    #[oai(mapping = "session_updated")]
    SessionUpdated(SessionUpdatedEvent),
    #[oai(mapping = "session_deleted")]
    SessionDeleted(SessionDeletedEvent),
    #[oai(mapping = "turn_started")]
    TurnStarted(TurnStartedEvent),
    #[oai(mapping = "turn_finished")]
    TurnFinished(TurnFinishedEvent),
    #[oai(mapping = "approval_requested")]
    ApprovalRequested(ApprovalRequestedEvent),
    #[oai(mapping = "approval_resolved")]
    ApprovalResolved(ApprovalResolvedEvent),
    #[oai(mapping = "timer_fired")]
    TimerFired(TimerFiredEvent),
    #[oai(mapping = "ping")]
    Ping(UserPingEvent),
    #[oai(mapping = "reconnect")]
    Reconnect(UserReconnectEvent),
    #[oai(mapping = "reset")]
    Reset(UserResetEvent),
}

/// A session was opened (in this tab or another).
#[derive(Debug, Object)]
pub struct SessionCreatedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub tool_id: Uuid,
}

/// A session changed; only the fields that changed are present (its title, a rename,
/// pinned, archived, its state when it ended and why).
#[derive(Debug, Object)]
pub struct SessionUpdatedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub title: Option<String>,
    pub pinned: Option<bool>,
    pub archived: Option<bool>,
    pub state: Option<SessionState>,
    pub end_reason: Option<String>,
}

/// A session was deleted.
#[derive(Debug, Object)]
pub struct SessionDeletedEvent {
    pub seq: u64,
    pub session_id: Uuid,
}

/// A turn was accepted: follow it at `/v1/prompts/{prompt_id}/events`.
#[derive(Debug, Object)]
pub struct TurnStartedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    pub user_message_id: Option<Uuid>,
}

/// A turn ended; `state` is its prompt's final state.
#[derive(Debug, Object)]
pub struct TurnFinishedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    pub state: PromptState,
    pub assistant_message_id: Option<Uuid>,
}

/// A function call waits for the user's approval: approve it (`POST
/// /v1/prompts/{prompt_id}/calls/{call_id}/approve`, optionally with edited input) or
/// deny it (`…/deny`) before `expires_at`, after which it is denied.
#[derive(Debug, Object)]
pub struct ApprovalRequestedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    pub call_id: Uuid,
    pub function: String,
    /// The call's arguments.
    pub input: Value,
    pub expires_at: DateTime<Utc>,
}

/// A function call's approval was decided (here or on another device): approved, or
/// denied — by the user, or because no one decided in time (`expired`).
#[derive(Debug, Object)]
pub struct ApprovalResolvedEvent {
    pub seq: u64,
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    pub call_id: Uuid,
    pub approved: bool,
    /// Denied because no one decided before it expired (absent: false).
    pub expired: Option<bool>,
}

/// A timer went off. Its notice (an assistant message, `message_id`) is in the session
/// it was set in, unless it was set with no session or the session is gone.
#[derive(Debug, Object)]
pub struct TimerFiredEvent {
    pub seq: u64,
    pub timer_id: Uuid,
    pub label: String,
    pub session_id: Option<Uuid>,
    pub message_id: Option<Uuid>,
}

/// Keep-alive, every 8 s on each open connection; not stored, no `id:` line.
#[derive(Debug, Object)]
pub struct UserPingEvent {
    /// Unix time in milliseconds.
    pub ts: i64,
}

/// The server is shutting down: reconnect after `retry_ms` with the last `id` received
/// as `Last-Event-ID`. Not stored, no `id:` line.
#[derive(Debug, Object)]
pub struct UserReconnectEvent {
    pub retry_ms: u64,
}

/// Events after the reader's `Last-Event-ID` are no longer held (the feed keeps a short
/// history) or were lost: refetch the session list (`GET /v1/sessions`). The events
/// after it are the oldest the feed holds. Not stored, no `id:` line.
#[derive(Debug, Object)]
pub struct UserResetEvent {}

/// The `event:` names of the user feed: each is the `type` of the event in `data`.
#[derive(Debug, Clone, Copy, Enum)]
#[oai(rename_all = "snake_case")]
pub enum UserEventName {
    SessionCreated,
    SessionUpdated,
    SessionDeleted,
    TurnStarted,
    TurnFinished,
    ApprovalRequested,
    ApprovalResolved,
    TimerFired,
    Ping,
    Reconnect,
    Reset,
}

/// One Server-Sent Event of the user feed, as an SSE client sees it.
#[derive(Debug, Object)]
pub struct UserSseEvent {
    /// The event's `seq` (absent on `ping`, `reconnect` and `reset`): send it back as
    /// `Last-Event-ID` to resume.
    #[oai(validator(pattern = r"^[0-9]+$"))]
    pub id: Option<String>,
    pub event: UserEventName,
    /// A `UserEvent` as JSON (see that schema), whose `type` is `event`.
    pub data: String,
}

#[cfg(test)]
mod tests;
