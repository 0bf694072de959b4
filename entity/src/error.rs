//! How database failures become the domain error ([`parley_protocol::error::Error`]):
//! constraint violations become conflicts the caller can act on, lost connections the
//! database being unavailable, anything else an internal error with its context.

use parley_protocol::error::{Error, ErrorCode, Result};

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
                ErrorCode::AlreadyExists,
                format!("{attempt}: a record with the same unique value already exists"),
            );
        }
        Some(SqlErr::ForeignKeyConstraintViolation(_)) => {
            return Error::conflict(
                ErrorCode::StillReferenced,
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
            ErrorCode::StillReferenced,
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
