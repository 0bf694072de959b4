//! What every handler can reach: the database, the two seams (job queue and event
//! log), the models served, Redis when configured, and limits.

use std::{sync::Arc, time::Duration};

use parley_runtime::{event_log::EventLog, queue::JobQueue};
use sea_orm::DatabaseConnection;

/// Limits the API enforces on input.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest request body accepted, in bytes (413 above it).
    pub max_body_bytes: usize,
    /// The longest message content accepted, in bytes (422 above it).
    pub max_message_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
            max_message_bytes: 32 * 1024,
        }
    }
}

/// The models clients may ask for.
#[derive(Debug, Clone)]
pub struct Models {
    /// Every model id; the first is the default.
    pub ids: Vec<String>,
}

impl Models {
    pub fn default_model(&self) -> &str {
        self.ids.first().map(String::as_str).unwrap_or_default()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.ids.iter().any(|m| m == id)
    }
}

/// How the streaming endpoints behave.
#[derive(Debug, Clone)]
pub struct Streaming {
    /// The keep-alive interval of SSE connections.
    pub ping_every: Duration,
    /// How long `Accept: application/json` waits for a turn before answering 504.
    pub wait_timeout: Duration,
}

impl Default for Streaming {
    fn default() -> Self {
        Self {
            ping_every: Duration::from_secs(8),
            wait_timeout: Duration::from_secs(300),
        }
    }
}

/// Shared by all requests; cheap to clone.
#[derive(Clone)]
pub struct AppState {
    pub db: DatabaseConnection,
    /// Present in distributed mode; `/readyz` checks it. A client only: connections are
    /// made on use, so Parley starts (and reports not-ready) while Redis is down.
    pub redis: Option<redis::Client>,
    pub events: Arc<dyn EventLog>,
    pub queue: Arc<dyn JobQueue>,
    pub models: Arc<Models>,
    pub limits: Limits,
    pub streaming: Streaming,
}
