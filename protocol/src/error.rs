//! The error catalogue and the one domain error of Parley.
//!
//! [`ErrorCode`] is every stable, machine-readable code Parley answers with, in one
//! table: the `code` of a problem+json body, of an SSE `error` event and of
//! `prompts.error_code`, the `code` label of the turn metrics, and the `ErrorCode` schema
//! of the API document. Each code carries the HTTP status a problem with it answers and,
//! when a turn can end with it, the stable message that turn carries.
//!
//! [`Error`] is what every layer below the API returns. It is grouped by what the caller
//! must know, not by where it came from. The client-facing message (`Display`) is kept
//! apart from the internal context (the `source` of [`Error::Internal`]), which is logged
//! but never shown. The api's `error` module maps it to a problem body through
//! [`Error::code`] and [`ErrorCode::status`].
//!
//! Adding a code: one line in the table of `error/code.rs` (its doc, its snake_case string, its
//! status, and `turn "message"` if a turn can end with it), then regenerate the API
//! document (`cargo run -p parley -- openapi --out openapi/openapi.json`) and the
//! clients generated from it.

use std::fmt;

mod code;

pub use code::ErrorCode;

/// What went wrong, as the caller needs to know it.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The thing does not exist, or belongs to someone else (both answer the same).
    #[error("{what} not found")]
    NotFound { what: &'static str },
    /// The request is well-formed but clashes with the current state (a 409 code).
    #[error("{message}")]
    Conflict { code: ErrorCode, message: String },
    /// The request is well-formed JSON but its values are not acceptable (a 422 code).
    #[error("{message}")]
    Invalid { code: ErrorCode, message: String },
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
    /// Over a spending budget: try again after `retry_after_s` seconds (its period's end).
    #[error("{message}")]
    OverBudget { message: String, retry_after_s: u64 },
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

    /// A clash with the current state; `code` is one of the catalogue's 409 codes.
    pub fn conflict(code: ErrorCode, message: impl Into<String>) -> Self {
        debug_assert_eq!(code.status(), 409, "`{code}` is not a conflict's code");
        Self::Conflict {
            code,
            message: message.into(),
        }
    }

    /// Values that are not acceptable; `code` is one of the catalogue's 422 codes.
    pub fn invalid(code: ErrorCode, message: impl Into<String>) -> Self {
        debug_assert_eq!(
            code.status(),
            422,
            "`{code}` is not an invalid value's code"
        );
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

    /// The catalogue's code of this error; its status is the problem's.
    pub fn code(&self) -> ErrorCode {
        match self {
            Self::NotFound { .. } => ErrorCode::NotFound,
            Self::Conflict { code, .. } | Self::Invalid { code, .. } => *code,
            Self::Unauthenticated => ErrorCode::Unauthenticated,
            Self::Forbidden { .. } => ErrorCode::Forbidden,
            Self::Unavailable { .. } => ErrorCode::Unavailable,
            Self::RateLimited { .. } => ErrorCode::QuotaExceeded,
            Self::OverBudget { .. } => ErrorCode::BudgetExceeded,
            Self::Internal(_) => ErrorCode::InternalError,
        }
    }
}

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests;
