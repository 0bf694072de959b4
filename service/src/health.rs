//! Whether the database can serve (`/readyz`): it answers a statement and takes a write
//! (a full disk or a read-only database answers reads and fails every turn). The
//! queue's and the event log's checks are their seams' own (`ready`); Redis's is the
//! api's, which holds the client.

use std::time::Duration;

use parley_entity::query::secrets;
use sea_orm::DatabaseConnection;

/// How the database answered, as `/readyz` reports it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatabaseHealth {
    Ok,
    /// The statement failed.
    Unreachable,
    /// No answer to the statement in time.
    TimedOut,
    /// It answered, and the write failed.
    RefusesWrites,
    /// It answered, and the write took too long.
    TimedOutWriting,
}

impl DatabaseHealth {
    /// What `/readyz` says of the check (`ok`, or what failed).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Unreachable => "unreachable",
            Self::TimedOut => "timed out",
            Self::RefusesWrites => "refuses writes",
            Self::TimedOutWriting => "timed out writing",
        }
    }
}

/// The application layer of readiness; cheap to clone.
#[derive(Clone)]
pub struct HealthService {
    db: DatabaseConnection,
}

impl HealthService {
    pub fn new(db: DatabaseConnection) -> Self {
        Self { db }
    }

    /// The database answers (`SELECT 1`) and takes a write (the readiness probe's row),
    /// each within `within`; what failed is logged.
    pub async fn database(&self, within: Duration) -> DatabaseHealth {
        match tokio::time::timeout(within, secrets::ping(&self.db)).await {
            Ok(Ok(())) => {}
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "readiness: database check failed");
                return DatabaseHealth::Unreachable;
            }
            Err(_) => return DatabaseHealth::TimedOut,
        }
        match tokio::time::timeout(within, secrets::write_probe(&self.db)).await {
            Ok(Ok(())) => DatabaseHealth::Ok,
            Ok(Err(err)) => {
                tracing::warn!(error = %err, "readiness: the database refuses writes");
                DatabaseHealth::RefusesWrites
            }
            Err(_) => DatabaseHealth::TimedOutWriting,
        }
    }
}
