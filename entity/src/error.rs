//! The one domain error of Parley.
//!
//! Grouped by what the caller must know, not by where it came from. The client-facing
//! message (`Display`) is kept apart from the internal context (the `source` of
//! [`Error::Internal`]), which is logged but never shown. Exactly one place, the api's
//! `error` module, maps this enum to an HTTP status, a stable `code` and a problem body.

use std::fmt;

/// What went wrong, as the caller needs to know it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The thing does not exist, or belongs to someone else (both answer the same).
    #[error("{what} not found")]
    NotFound { what: &'static str },
    /// The request is well-formed but clashes with the current state.
    #[error("{message}")]
    Conflict { code: &'static str, message: String },
    /// The request is well-formed JSON but its values are not acceptable.
    #[error("{message}")]
    Invalid { code: &'static str, message: String },
    /// No valid credentials.
    #[error("missing, invalid, expired or revoked bearer token")]
    Unauthenticated,
    /// Valid credentials that do not allow this.
    #[error("{message}")]
    Forbidden { message: String },
    /// A dependency (database, queue, event log) cannot serve the request now.
    #[error("{what} is unavailable")]
    Unavailable { what: String },
    /// Over a quota: try again after `retry_after_s` seconds.
    #[error("{message}")]
    RateLimited {
        /// Which limit (`turns_per_minute`, `tokens_per_day`).
        limit: &'static str,
        message: String,
        retry_after_s: u64,
    },
    /// A bug or an unexpected failure; the context is for logs only.
    #[error("internal error")]
    Internal(#[source] InternalContext),
}

/// A conversion that cannot fail (an API view built with `From`) fits where one that can
/// fail is expected.
impl From<std::convert::Infallible> for Error {
    fn from(never: std::convert::Infallible) -> Self {
        match never {}
    }
}

/// The private side of an internal error: what was being attempted and why it failed.
#[derive(Debug)]
pub struct InternalContext {
    pub attempt: String,
    pub cause: Box<dyn std::error::Error + Send + Sync>,
}

impl fmt::Display for InternalContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.attempt, self.cause)
    }
}

impl std::error::Error for InternalContext {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(self.cause.as_ref())
    }
}

impl Error {
    pub fn not_found(what: &'static str) -> Self {
        Self::NotFound { what }
    }

    pub fn conflict(code: &'static str, message: impl Into<String>) -> Self {
        Self::Conflict {
            code,
            message: message.into(),
        }
    }

    pub fn invalid(code: &'static str, message: impl Into<String>) -> Self {
        Self::Invalid {
            code,
            message: message.into(),
        }
    }

    pub fn forbidden(message: impl Into<String>) -> Self {
        Self::Forbidden {
            message: message.into(),
        }
    }

    pub fn internal(
        attempt: impl Into<String>,
        cause: impl Into<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Self {
        Self::Internal(InternalContext {
            attempt: attempt.into(),
            cause: cause.into(),
        })
    }
}

/// Adds "what was being attempted" to database and other I/O failures.
pub trait Context<T> {
    fn context(self, attempt: &str) -> Result<T, Error>;
}

impl<T> Context<T> for Result<T, sea_orm::DbErr> {
    fn context(self, attempt: &str) -> Result<T, Error> {
        self.map_err(|err| classify_db_error(attempt, err))
    }
}

/// Constraint violations become conflicts the caller can act on; the rest is internal.
/// Connection-level failures are reported as the database being unavailable.
fn classify_db_error(attempt: &str, err: sea_orm::DbErr) -> Error {
    use sea_orm::{DbErr, SqlErr};
    match err.sql_err() {
        Some(SqlErr::UniqueConstraintViolation(_)) => {
            return Error::conflict(
                "already_exists",
                format!("{attempt}: a record with the same unique value already exists"),
            );
        }
        Some(SqlErr::ForeignKeyConstraintViolation(_)) => {
            return Error::conflict(
                "still_referenced",
                format!(
                    "{attempt}: other records still refer to it, or a referenced record does not exist"
                ),
            );
        }
        _ => {}
    }
    // SQLite reports a RESTRICT foreign-key action as SQLITE_CONSTRAINT_TRIGGER (1811),
    // which sea-orm does not classify; its message is the same as for code 787.
    if err.to_string().contains("FOREIGN KEY constraint failed") {
        return Error::conflict(
            "still_referenced",
            format!("{attempt}: other records still refer to it"),
        );
    }
    match err {
        DbErr::ConnectionAcquire(_) | DbErr::Conn(_) => {
            tracing::warn!(error = %err, attempt, "database unavailable");
            Error::Unavailable {
                what: "database".into(),
            }
        }
        other => Error::internal(attempt.to_owned(), other),
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;
