//! What every handler can reach: the database, Redis when configured, and limits.

use sea_orm::DatabaseConnection;

/// Limits the API enforces on input.
#[derive(Debug, Clone)]
pub struct Limits {
    /// The largest request body accepted, in bytes (413 above it).
    pub max_body_bytes: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            max_body_bytes: 1024 * 1024,
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
    pub limits: Limits,
}
