//! Job payloads carried by the job queue (`parley_runtime::queue`: Redis lists, or an
//! SQLite table in the embedded mode) from the api to the workers.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Work for one prompt: run its turn (generate its response), or — with `call` — run
/// one asynchronous function call the turn made. Jobs are at-least-once; the worker makes
/// a repeated job for a terminal prompt (or a finished call) a no-op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generate {
    pub prompt_id: Uuid,
    /// The `tool_calls` row of an asynchronous function call to run instead of the turn.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<Uuid>,
    /// W3C trace context (`traceparent`, `tracestate`) of the request that enqueued the
    /// job, so one trace spans api → queue → worker.
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub trace_context: HashMap<String, String>,
    /// The prompt's session row (`parley_entity::sessions::Model` as JSON) as whoever
    /// enqueued the job read it, so the worker need not read it again: the fields a turn
    /// uses (owner, tool, assignment, the frozen config) never change. Optional — a job
    /// without it makes the worker read the row.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub session: Option<serde_json::Value>,
}

impl Generate {
    pub fn new(prompt_id: Uuid) -> Self {
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
            ..Self::new(prompt_id)
        }
    }
}
