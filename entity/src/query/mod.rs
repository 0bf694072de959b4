//! Hand-written query methods over the entities, shared by api and worker.
//!
//! Nothing outside this crate builds SQL. Each function says what it does in domain
//! words and returns the domain [`Error`](crate::error::Error) with context.

pub mod access;
pub mod assignments;
pub mod catalog;
pub mod classes;
pub mod conversation;
pub mod files;
pub mod groups;
pub mod metrics;
pub mod moderation;
pub mod notes;
pub mod page;
pub mod prompts;
pub mod search;
pub mod secrets;
pub mod sessions;
#[cfg(test)]
mod testing;
pub mod timers;
pub mod todos;
pub mod tokens;
pub mod tool_calls;
pub mod tools;
pub mod users;

use sea_orm::{
    DatabaseConnection, DatabaseTransaction, SqliteTransactionMode, TransactionOptions,
    TransactionTrait, prelude::DateTimeUtc,
};

use crate::error::{Context, Result};

/// Starts a transaction that will write. On SQLite it takes the write lock up front
/// (`BEGIN IMMEDIATE`, waiting out the busy timeout) instead of upgrading a read lock
/// mid-way, which SQLite refuses at once when another connection writes; PostgreSQL
/// ignores the mode.
pub async fn begin_write(db: &DatabaseConnection, attempt: &str) -> Result<DatabaseTransaction> {
    let options = TransactionOptions {
        sqlite_transaction_mode: Some(SqliteTransactionMode::Immediate),
        ..Default::default()
    };
    db.begin_with_options(options).await.context(attempt)
}

/// The current time, truncated to microseconds: the precision PostgreSQL keeps, so that
/// a value read back equals the value written on both databases.
pub fn now() -> DateTimeUtc {
    let now = chrono::Utc::now();
    let micros = now.timestamp_micros();
    chrono::DateTime::from_timestamp_micros(micros).unwrap_or(now)
}
