//! Hand-written query methods over the entities, shared by api and worker.
//!
//! Nothing outside this crate builds SQL. Each function says what it does in domain
//! words and returns the domain [`Error`] with context.

pub mod access;
pub mod approvals;
pub mod assignments;
mod batch;
pub mod budgets;
pub mod catalog;
pub mod classes;
pub mod conversation;
pub mod feedback;
pub mod files;
pub mod groups;
pub mod metrics;
pub mod moderation;
pub mod notes;
pub mod page;
pub mod prompts;
pub mod quotas;
pub mod resource;
pub mod schedule;
pub mod search;
pub mod secrets;
pub mod session_edits;
pub mod session_search;
pub mod session_summaries;
pub mod sessions;
#[cfg(test)]
mod stored_config;
pub mod teaching;
#[cfg(test)]
mod testing;
pub mod timers;
pub mod todos;
pub mod tokens;
pub mod tool_calls;
pub mod tools;
pub mod tree;
pub mod users;

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;
use std::sync::{Mutex, OnceLock, PoisonError};

use futures::FutureExt;
use parley_protocol::error::{Error, Result};

use sea_orm::{
    DatabaseConnection, DatabaseTransaction, DbBackend, SqliteTransactionMode, TransactionOptions,
    TransactionTrait, prelude::DateTimeUtc,
};

use crate::error::Context;

/// Runs `write` — a function of the connection whose transaction writes — on the SQLite
/// writer thread when `db` is SQLite, else where it is.
///
/// SQLite writes one transaction at a time, and each statement of a transaction is a
/// round trip between the task and the connection's thread. Run from the main runtime,
/// every round trip also waited for a runtime thread free of the turns' streaming work,
/// and the whole wait was time the write lock was held: with 32 users, embedded mode
/// was bound by the writer lock while both cores were 40 % idle (BENCHMARKS.md, #9).
/// The writer thread runs nothing but these transactions, so a transaction holds the
/// lock only for its own statements. The write completes even if the caller stops
/// waiting (as a commit already sent would). Writes run there one after another: two
/// would only take turns on the lock anyway, and the one kept waiting would sleep in
/// SQLite's busy handler (1, 2, 5, … up to 100 ms a try) rather than start the moment
/// the lock is free.
///
/// Writes on a turn's way to its first token (its create and claim) wait ahead of the
/// others ([`Urgency`]).
pub async fn on_writer<T, F, W>(db: &DatabaseConnection, urgency: Urgency, write: F) -> Result<T>
where
    F: FnOnce(DatabaseConnection) -> W,
    W: Future<Output = Result<T>> + Send + 'static,
    T: Send + 'static,
{
    if db.get_database_backend() != DbBackend::Sqlite {
        return write(db.clone()).await;
    }
    // `write` gets the writer's own connection, so its future owns what it uses.
    let conn = writer_connection(db);
    let write = write(conn.clone());
    static QUEUE: WriterQueue = WriterQueue::new();
    let write = async move {
        let _turn = QUEUE.wait(urgency).await;
        match AssertUnwindSafe(write).catch_unwind().await {
            Ok(written) => written,
            Err(panic) => {
                // A transaction spanning batches may be open: end it before the next
                // write begins its own.
                batch::rollback(&conn).await;
                std::panic::resume_unwind(panic)
            }
        }
    };
    match writer().spawn(write).await {
        Ok(written) => written,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(Error::internal("running a write transaction", e)),
    }
}

/// Where a write waits for its turn on the writer thread.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Urgency {
    /// On a turn's way to its first token (its create and claim): goes before waiting
    /// [`Urgency::InOrder`] writes, each of which it may overtake at most
    /// [`MAX_OVERTAKEN`] times in a row.
    FirstToken,
    /// Everything else (a finish), in arrival order.
    InOrder,
}

/// How many first-token writes may go before a waiting in-order write: its wait is
/// bounded, however many new turns arrive.
const MAX_OVERTAKEN: u32 = 4;

/// The writer's turns: one write at a time, first-token writes first.
struct WriterQueue {
    state: Mutex<Waiting>,
}

struct Waiting {
    busy: bool,
    first_token: std::collections::VecDeque<tokio::sync::oneshot::Sender<()>>,
    in_order: std::collections::VecDeque<tokio::sync::oneshot::Sender<()>>,
    /// First-token writes that went while an in-order write waited.
    overtaken: u32,
}

/// A write's turn; the next waiting write goes when it is dropped.
struct WriterTurn(&'static WriterQueue);

impl WriterQueue {
    const fn new() -> Self {
        Self {
            state: Mutex::new(Waiting {
                busy: false,
                first_token: std::collections::VecDeque::new(),
                in_order: std::collections::VecDeque::new(),
                overtaken: 0,
            }),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    async fn wait(&'static self, urgency: Urgency) -> WriterTurn {
        let waiting = {
            let mut state = self.lock();
            if !state.busy {
                state.busy = true;
                return WriterTurn(self);
            }
            let (go, waiting) = tokio::sync::oneshot::channel();
            match urgency {
                Urgency::FirstToken => state.first_token.push_back(go),
                Urgency::InOrder => state.in_order.push_back(go),
            }
            waiting
        };
        // The sender is only dropped unsent by a queue that handed the turn on to this
        // waiter, or with the queue (never: it is static).
        let _ = waiting.await;
        WriterTurn(self)
    }
}

impl Drop for WriterTurn {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        loop {
            let urgent_first = !state.first_token.is_empty()
                && (state.in_order.is_empty() || state.overtaken < MAX_OVERTAKEN);
            let next = if urgent_first {
                if !state.in_order.is_empty() {
                    state.overtaken += 1;
                }
                state.first_token.pop_front()
            } else {
                state.overtaken = 0;
                state.in_order.pop_front()
            };
            match next {
                // A waiter that is gone (its task was dropped) passes the turn on.
                Some(go) => {
                    if go.send(()).is_ok() {
                        return;
                    }
                }
                None => {
                    state.busy = false;
                    return;
                }
            }
        }
    }
}

/// The connection the writer thread writes `db`'s file with: one of its own, opened with
/// `db`'s settings on first use and kept for the process's life, so its writes never
/// queue behind readers for one of the pool's connections, and a transaction may span
/// several round trips ([`batch`]). An in-memory database (tests) has no file another
/// connection could open: its writes use `db`.
pub(crate) fn writer_connection(db: &DatabaseConnection) -> DatabaseConnection {
    type Writers = Mutex<Vec<(PathBuf, DatabaseConnection)>>;
    static WRITERS: OnceLock<Writers> = OnceLock::new();
    let options = db.get_sqlite_connection_pool().connect_options();
    let file = options.get_filename();
    let mut writers = WRITERS
        .get_or_init(Writers::default)
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    if let Some((_, conn)) = writers.iter().find(|(path, _)| path == file) {
        return conn.clone();
    }
    // Asked once per file, not on every write: it is a `stat`.
    if owns_connection(db) || !file.is_file() {
        return db.clone();
    }
    let pool = sea_orm::sqlx::sqlite::SqlitePoolOptions::new()
        .max_connections(1)
        .min_connections(0)
        .idle_timeout(None)
        .max_lifetime(None)
        .test_before_acquire(false)
        .connect_lazy_with((*options).clone());
    let conn = sea_orm::SqlxSqliteConnector::from_sqlx_sqlite_pool(pool);
    writers.push((file.to_owned(), conn.clone()));
    conn
}

/// Whether `db` (SQLite) is one connection, which the writer may use for a transaction
/// that spans several round trips ([`batch`]): the writer's own, or a test's database.
/// On a pool of several, the next round trip could go to another connection.
pub(crate) fn owns_connection(db: &DatabaseConnection) -> bool {
    db.get_sqlite_connection_pool()
        .options()
        .get_max_connections()
        == 1
}

/// The writer thread's runtime, started on first use; it lives as long as the process.
fn writer() -> &'static tokio::runtime::Handle {
    static WRITER: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    WRITER.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the database writer's runtime starts");
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("parley-db-writer".into())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))
            .expect("the database writer's thread starts");
        handle
    })
}

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

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use super::*;

    #[tokio::test]
    async fn first_token_writes_go_first_and_an_in_order_write_is_overtaken_a_bounded_number_of_times()
     {
        let queue: &'static WriterQueue = Box::leak(Box::new(WriterQueue::new()));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let held = queue.wait(Urgency::InOrder).await;
        let mut tasks = Vec::new();
        let labels = std::iter::once(("finish", Urgency::InOrder))
            .chain((1..=6).map(|_| ("create", Urgency::FirstToken)))
            .enumerate();
        for (i, (label, urgency)) in labels {
            let order = order.clone();
            let queued = |w: &Waiting| w.first_token.len() + w.in_order.len();
            let before = queued(&queue.lock());
            tasks.push(tokio::spawn(async move {
                let _turn = queue.wait(urgency).await;
                order.lock().unwrap().push(format!("{label}{i}"));
                tokio::task::yield_now().await;
            }));
            while queued(&queue.lock()) == before {
                tokio::task::yield_now().await;
            }
        }
        drop(held);
        for task in tasks {
            task.await.expect("no panic");
        }
        assert_eq!(
            *order.lock().unwrap(),
            [
                "create1", "create2", "create3", "create4", "finish0", "create5", "create6"
            ]
        );
        assert!(!queue.lock().busy, "the queue is free again");
    }

    #[tokio::test]
    async fn sqlite_writes_run_one_at_a_time_on_the_writer_thread() {
        let db = sea_orm::Database::connect("sqlite::memory:")
            .await
            .expect("an in-memory database");
        let (inside, peak) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
        let writes: Vec<_> = (0..6)
            .map(|_| {
                let (db, inside, peak) = (db.clone(), inside.clone(), peak.clone());
                tokio::spawn(async move {
                    on_writer(&db, Urgency::InOrder, |_| async move {
                        let thread = std::thread::current().name().map(str::to_owned);
                        let now = inside.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        tokio::time::sleep(Duration::from_millis(5)).await;
                        inside.fetch_sub(1, Ordering::SeqCst);
                        Ok(thread)
                    })
                    .await
                })
            })
            .collect();
        for write in writes {
            let thread = write.await.expect("no panic").expect("written");
            assert_eq!(thread.as_deref(), Some("parley-db-writer"));
        }
        assert_eq!(peak.load(Ordering::SeqCst), 1, "writes overlapped");
    }
}
