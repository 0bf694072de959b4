//! The per-user feed (DESIGN §13): what happens across one user's sessions, so another
//! tab or device follows along without polling.
//!
//! One append-only log per user; each [`UserEvent`] gets a `seq` from the feed when it
//! is appended — increasing, *not* gap-free (the Redis feed numbers by the clock, see
//! `parley_runtime::user_feed`) — and readers resume after the last seq they hold. The
//! feed keeps a short history only (bounded by length and age): the session list is the
//! durable truth, and a reader resuming from before what the feed still holds is told so
//! with a [`UserEventKind::Reset`] and refetches the list. On the wire (SSE):
//!
//! ```text
//! id: <seq>
//! event: <type>
//! data: {"type":"<type>","seq":<seq>, …fields}
//! ```
//!
//! `ping`, `reconnect` and `reset` are never stored and carry no `id`.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use uuid::Uuid;

use crate::events::PromptState;
use crate::jobs::SessionState;

/// One event of a user's feed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct UserEvent {
    pub seq: u64,
    #[serde(flatten)]
    pub kind: UserEventKind,
}

impl UserEvent {
    /// The SSE `event:` name (the `type` field).
    pub fn type_name(&self) -> &'static str {
        self.kind.type_name()
    }
}

/// What happened, a `type`-tagged union.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum UserEventKind {
    /// A session was opened.
    SessionCreated { session_id: Uuid, tool_id: Uuid },
    /// A session changed: only the fields that changed are present (its title, a
    /// rename, pinned, archived, its state when it ended).
    SessionUpdated {
        session_id: Uuid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        title: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        pinned: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        archived: Option<bool>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        state: Option<SessionState>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        end_reason: Option<String>,
    },
    /// A session was deleted.
    SessionDeleted { session_id: Uuid },
    /// The api accepted a turn: its prompt's own feed follows the generation.
    TurnStarted {
        session_id: Uuid,
        prompt_id: Uuid,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        user_message_id: Option<Uuid>,
    },
    /// A turn ended (`state` is its prompt's final state).
    TurnFinished {
        session_id: Uuid,
        prompt_id: Uuid,
        state: PromptState,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        assistant_message_id: Option<Uuid>,
    },
    /// A function call waits for the user's approval (approve or deny it by `call_id`).
    ApprovalRequested {
        session_id: Uuid,
        prompt_id: Uuid,
        call_id: Uuid,
        function: String,
        input: Value,
        expires_at: chrono::DateTime<chrono::Utc>,
    },
    /// A function call's approval was decided: approved, denied, or denied because no
    /// one decided in time (`expired`).
    ApprovalResolved {
        session_id: Uuid,
        prompt_id: Uuid,
        call_id: Uuid,
        approved: bool,
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        expired: bool,
    },
    /// A timer went off: its notice (an assistant message) is in its session, when it
    /// was set in one that still exists.
    TimerFired {
        timer_id: Uuid,
        label: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        session_id: Option<Uuid>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message_id: Option<Uuid>,
    },
    /// Keep-alive (never stored, no `id:`).
    Ping { ts: i64 },
    /// The server is closing: reconnect with `Last-Event-ID` after `retry_ms` (never
    /// stored, no `id:`).
    Reconnect { retry_ms: u64 },
    /// The reader resumed from before what the feed still holds (or from a feed that
    /// was lost): events were missed, refetch the session list. The events after it
    /// are the feed's oldest retained ones (never stored, no `id:`).
    Reset,
}

impl UserEventKind {
    /// The wire name (`type`).
    pub fn type_name(&self) -> &'static str {
        match self {
            Self::SessionCreated { .. } => "session_created",
            Self::SessionUpdated { .. } => "session_updated",
            Self::SessionDeleted { .. } => "session_deleted",
            Self::TurnStarted { .. } => "turn_started",
            Self::TurnFinished { .. } => "turn_finished",
            Self::ApprovalRequested { .. } => "approval_requested",
            Self::ApprovalResolved { .. } => "approval_resolved",
            Self::TimerFired { .. } => "timer_fired",
            Self::Ping { .. } => "ping",
            Self::Reconnect { .. } => "reconnect",
            Self::Reset => "reset",
        }
    }

    /// Whether the kind is stored in the feed (`ping`, `reconnect` and `reset` are not).
    pub fn is_stored(&self) -> bool {
        !matches!(
            self,
            Self::Ping { .. } | Self::Reconnect { .. } | Self::Reset
        )
    }

    /// A [`SessionUpdated`](Self::SessionUpdated) carrying only the session's new state
    /// (and why it ended).
    pub fn session_state(
        session_id: Uuid,
        state: SessionState,
        end_reason: Option<String>,
    ) -> Self {
        Self::SessionUpdated {
            session_id,
            title: None,
            pinned: None,
            archived: None,
            state: Some(state),
            end_reason,
        }
    }

    /// A [`SessionUpdated`](Self::SessionUpdated) carrying only the session's new title.
    pub fn session_titled(session_id: Uuid, title: String) -> Self {
        Self::SessionUpdated {
            session_id,
            title: Some(title),
            pinned: None,
            archived: None,
            state: None,
            end_reason: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_serialize_flat_with_their_type() {
        let event = UserEvent {
            seq: 7,
            kind: UserEventKind::TurnStarted {
                session_id: Uuid::nil(),
                prompt_id: Uuid::nil(),
                user_message_id: None,
            },
        };
        let json = serde_json::to_value(&event).unwrap();
        assert_eq!(json["type"], "turn_started");
        assert_eq!(json["seq"], 7);
        assert!(json.get("user_message_id").is_none(), "{json}");
        assert_eq!(serde_json::from_value::<UserEvent>(json).unwrap(), event);
        assert_eq!(event.type_name(), "turn_started");
        let reset = serde_json::to_value(UserEventKind::Reset).unwrap();
        assert_eq!(reset, serde_json::json!({"type": "reset"}));
    }
}
