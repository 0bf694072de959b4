//! Job payloads carried by the queue (apalis) from the api to the workers.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// Run one turn: generate the response of this prompt. Jobs are at-least-once; the
/// worker makes a repeated job for a terminal prompt a no-op.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generate {
    pub prompt_id: Uuid,
    /// W3C trace context (`traceparent`, `tracestate`) of the request that enqueued the
    /// job, so one trace spans api → queue → worker.
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub trace_context: HashMap<String, String>,
}

impl Generate {
    pub fn new(prompt_id: Uuid) -> Self {
        Self {
            prompt_id,
            trace_context: HashMap::new(),
        }
    }
}
