//! Job payloads carried by the job queue (`parley_runtime::queue`: Redis lists, or an
//! SQLite table in the embedded mode) from the api to the workers.

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use crate::{config::SessionConfig, events::shared_enum};

/// Work for one prompt: run its turn (generate its response), or — with `call` — run
/// one asynchronous function call the turn made. Jobs are at-least-once; the worker makes
/// a repeated job for a terminal prompt (or a finished call) a no-op.
///
/// The wire form is unchanged from when this type was called `Generate` (the queue is
/// still named `parley-generate`: its keys are what KEDA and operators read).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PromptJob {
    pub prompt_id: Uuid,
    /// The `tool_calls` row of an asynchronous function call to run instead of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Uuid>,
    /// W3C trace context (`traceparent`, `tracestate`) of the request that enqueued the
    /// job, so one trace spans api → queue → worker.
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub trace_context: HashMap<String, String>,
    /// The prompt's session row as whoever enqueued the job read it, so the worker need
    /// not read it again: the fields a turn uses (owner, tool, assignment, the frozen
    /// config) never change. Optional — a job without it, or with one that does not
    /// read (a job of another version), makes the worker read the row.
    #[serde(
        default,
        deserialize_with = "crate::config::stored::lenient",
        skip_serializing_if = "Option::is_none"
    )]
    pub session: Option<JobSession>,
}

/// A `sessions` row as a job carries it: the same fields, in the same JSON form, as
/// `parley_entity::sessions::Model` (which converts to and from it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct JobSession {
    pub id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    pub assignment_id: Option<Uuid>,
    pub submission_id: Option<Uuid>,
    pub state: SessionState,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub last_activity_at: DateTime<Utc>,
    pub message_count: i32,
    /// The resolved configuration, frozen when the session opened.
    pub config: SessionConfig,
    pub active_prompt_id: Option<Uuid>,
    pub end_reason: Option<String>,
    pub rid: Option<String>,
    /// The active leaf when the job was enqueued; it moves with every message, so the
    /// worker reads the current one with its claim instead.
    #[serde(default)]
    pub active_leaf_id: Option<Uuid>,
    /// The fields below came with session management (#14): a job of an earlier
    /// version has none.
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub title_source: Option<TitleSource>,
    #[serde(default)]
    pub pinned_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub archived_at: Option<DateTime<Utc>>,
    #[serde(default)]
    pub deleted_at: Option<DateTime<Utc>>,
}

shared_enum! {
    /// `sessions.title_source`: who wrote a session's title. The generator only ever
    /// replaces a `words` title; the owner's (`user`) is never replaced.
    pub enum TitleSource {
        /// The first words of the first user message, written by the first finished turn.
        Words = "words",
        /// The configured title model, in the background after the first exchange.
        Model = "model",
        /// The owner.
        User = "user",
    }
}

shared_enum! {
    /// `sessions.state`.
    pub enum SessionState {
        Active = "active",
        Completed = "completed",
    }
}

impl PromptJob {
    /// The job that runs the prompt's turn.
    pub fn turn(prompt_id: Uuid) -> Self {
        Self {
            prompt_id,
            call: None,
            trace_context: HashMap::new(),
            session: None,
        }
    }

    /// The job that runs asynchronous function call `call` of the prompt.
    pub fn function_call(prompt_id: Uuid, call: Uuid) -> Self {
        Self {
            call: Some(call),
            ..Self::turn(prompt_id)
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_job_of_an_earlier_version_reads_its_session_typed() {
        let (prompt, session, user, tool) = (
            Uuid::now_v7(),
            Uuid::now_v7(),
            Uuid::now_v7(),
            Uuid::now_v7(),
        );
        // The session row as `sessions::Model` serialized it, its config as the JSON
        // merge left it.
        let row = json!({
            "id": session, "user_id": user, "tool_id": tool, "assignment_id": null,
            "submission_id": null, "state": "active", "started_at": "2026-11-20T10:00:00Z",
            "ended_at": null, "last_activity_at": "2026-11-20T10:05:00Z", "message_count": 4,
            "config": {"model": "m", "skills": {"enabled": false}, "theme": "dark"},
            "active_prompt_id": prompt, "end_reason": null, "rid": null
        });
        let job: PromptJob =
            serde_json::from_value(json!({"prompt_id": prompt, "session": row})).unwrap();
        let carried = job.session.clone().expect("the session reads");
        assert_eq!(carried.state, SessionState::Active);
        assert_eq!(carried.config.model.as_deref(), Some("m"));
        assert!(!carried.config.skills_enabled());
        let again: PromptJob = serde_json::from_str(&serde_json::to_string(&job).unwrap()).unwrap();
        assert_eq!(again, job, "the typed job goes through the queue as it is");

        // A session that does not read leaves the job whole: the worker reads the row.
        let odd: PromptJob =
            serde_json::from_value(json!({"prompt_id": prompt, "session": {"id": 3}})).unwrap();
        assert_eq!(odd, PromptJob::turn(prompt));
    }
}
