//! The errors of the worker's stages, at the bottom of its modules (every stage uses
//! them; they use no stage): why a turn could not run to a recorded end, why a sink
//! could not record, and what a job reports to the queue.

use parley_protocol::error::Error;
use parley_runtime::event_log::EventLogError;
use uuid::Uuid;

/// What a job did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// The turn ran (to any end) or was already finished. `next` is the session's next
    /// waiting prompt, whose job the caller enqueues.
    Done { next: Option<Uuid> },
    /// Another worker holds the prompt; try the job again later.
    Busy,
}

/// Why a turn could not run to a recorded end.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// Another worker owns the prompt now (our lease lapsed): stop without writing.
    #[error("lost the prompt to another worker")]
    LeaseLost,
    #[error("{}", describe(.0))]
    Storage(#[from] Error),
    #[error(transparent)]
    Events(#[from] EventLogError),
}

impl From<SinkError> for TurnError {
    fn from(err: SinkError) -> Self {
        match err {
            SinkError::Events(err) => Self::Events(err),
            SinkError::Storage(err) => Self::Storage(err),
        }
    }
}

/// The sink could not record: the event log or the database failed.
#[derive(Debug, thiserror::Error)]
pub enum SinkError {
    #[error("appending an event: {0}")]
    Events(#[from] EventLogError),
    #[error("writing the turn: {}", describe(.0))]
    Storage(#[from] Error),
}

/// A failure the job cannot finish past: the queue retries it (bounded).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct JobError(#[from] TurnError);

impl From<Error> for JobError {
    fn from(err: Error) -> Self {
        Self(err.into())
    }
}

/// An error with its internal context (what was attempted and why it failed), for logs;
/// the domain error's `Display` hides that context from clients.
pub fn describe(err: &Error) -> String {
    match err {
        Error::Internal(context) => context.to_string(),
        other => other.to_string(),
    }
}
