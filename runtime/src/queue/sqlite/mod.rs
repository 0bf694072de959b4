//! The SQLite job queue (embedded mode): Parley's own, three statements per job, in a
//! SQLite file of its own (`<data_dir>/queue.db`), apart from the application database.
//!
//! Two tables, created by [`SqliteQueue::open`]:
//!
//! * `parley_jobs` — one row per job not yet acknowledged: its queue (namespace), its
//!   payload (JSON) and the worker that took it (`NULL` while it waits). The row id orders
//!   the jobs: [`JobQueue::enqueue`] is one `INSERT`; a consumer takes the oldest waiting
//!   job with one `UPDATE … RETURNING`, and acknowledges it with one `DELETE`. A job
//!   handed back keeps its id, so it is the next one taken.
//! * `parley_job_workers` — the workers and their last heartbeat (ms since the epoch).
//!
//! The file is in WAL mode with `synchronous = NORMAL`: a committed job survives the
//! process being killed (only an OS crash can lose the last commits). One connection:
//! every statement of the queue but [`JobQueue::depth`] writes, and SQLite writes one at
//! a time; with more, the losers would sleep in SQLite's busy handler (up to 100 ms a
//! try) instead of queueing in the pool.
//!
//! Consumers are woken in-process by [`SqliteQueue::enqueue`] (the api and the workers of
//! `parley serve` share one `SqliteQueue`); a job written by another process is found by
//! the [`ConsumerConfig::poll_interval`](super::ConsumerConfig::poll_interval) poll. A fetch takes as many waiting jobs as the
//! pool has free slots, in one statement, and after a fetch that emptied the queue the
//! next one waits for a wake-up (or the poll) instead of finding nothing.
//!
//! Every statement runs on the queue's own thread ([`on_queue_thread`]), like embedded
//! mode's database writes (`parley_entity::query::on_writer`): the one connection goes
//! from one statement to the next there, not after the task that waits for it has found
//! a free runtime thread among the turns' streaming work.
//!
//! Orphans: every heartbeat hands the jobs of workers whose heartbeat is
//! `heartbeat × missed_heartbeats` old back to the queue (see [`super`]) — also a worker
//! of the restarted process.
//!
//! This replaces `apalis-sqlite` (DESIGN §1 names an apalis backend): it spent four
//! statements on a job — a push, a fetch through a four-way `UNION` of sub-selects, a
//! lock and an acknowledgement that each decode a JSON array of ids with `json_each` —
//! and kept every finished job until a purge. At C = 32 in `parley serve` its one
//! connection's thread took 31 % of the process's CPU (`docs/decisions.md`).

use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use parley_protocol::jobs::PromptJob;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::watch;
use tracing::warn;

use super::{DEFAULT_QUEUE, JobQueue, QueueError};
pub(crate) use pool::Pool;

mod pool;

/// The schema, created on open (idempotent).
const SCHEMA: &str = "\
CREATE TABLE IF NOT EXISTS parley_jobs (
    id INTEGER PRIMARY KEY,
    queue TEXT NOT NULL,
    payload TEXT NOT NULL,
    worker TEXT
);
CREATE INDEX IF NOT EXISTS parley_jobs_queue_worker ON parley_jobs (queue, worker, id);
CREATE TABLE IF NOT EXISTS parley_job_workers (
    queue TEXT NOT NULL,
    name TEXT NOT NULL,
    last_seen_ms INTEGER NOT NULL,
    PRIMARY KEY (queue, name)
) WITHOUT ROWID;";

/// The SQLite [`JobQueue`]. Cheap to clone; clones share the connection and the wake-ups.
#[derive(Clone)]
pub struct SqliteQueue {
    pool: SqlitePool,
    path: Arc<PathBuf>,
    queue: String,
    wake: Arc<watch::Sender<u64>>,
}

impl fmt::Debug for SqliteQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteQueue")
            .field("path", &self.path)
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

impl SqliteQueue {
    /// Opens (creating it and its directory if missing) the queue file at `path` and
    /// brings its schema up to date.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, QueueError> {
        let path = path.as_ref().to_owned();
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            tokio::fs::create_dir_all(dir)
                .await
                .map_err(|e| QueueError::Unavailable(format!("creating {}: {e}", dir.display())))?;
        }
        let options = SqliteConnectOptions::new()
            .filename(&path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .busy_timeout(Duration::from_secs(5))
            // Checkpoints are the checkpointer's (below), not a commit's.
            .pragma("wal_autocheckpoint", "0");
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            // A local file has no peer to lose: no ping (a round trip) on each checkout,
            // and no reaper of idle connections (sqlx 0.9.0's can spin, sqlx#3645).
            .test_before_acquire(false)
            .idle_timeout(None)
            .max_lifetime(None)
            .connect_with(options.clone())
            .await
            .map_err(|e| sqlx_error(&format!("opening {}", path.display()), e))?;
        sqlx::raw_sql(SCHEMA)
            .execute(&pool)
            .await
            .map_err(|e| sqlx_error(&format!("creating the tables of {}", path.display()), e))?;
        let path = Arc::new(path);
        spawn_checkpointer(options, Arc::downgrade(&path));
        Ok(Self {
            pool,
            path,
            queue: DEFAULT_QUEUE.into(),
            wake: Arc::new(watch::channel(0).0),
        })
    }

    /// The same file on another queue (namespace).
    pub fn with_queue(mut self, queue: impl Into<String>) -> Self {
        self.queue = queue.into();
        self
    }

    fn wake_consumers(&self) {
        self.wake.send_modify(|n| *n = n.wrapping_add(1));
    }

    /// The pool of a worker named `name`.
    pub(crate) fn pool(&self, name: &str) -> Arc<Pool> {
        Arc::new(Pool {
            queue: self.clone(),
            name: name.to_owned(),
            held: Mutex::default(),
            fetched: Mutex::default(),
            drained: AtomicBool::new(false),
            stray: AtomicBool::new(false),
        })
    }
}

#[async_trait]
impl JobQueue for SqliteQueue {
    async fn enqueue(&self, job: PromptJob) -> Result<(), QueueError> {
        let payload = serde_json::to_string(&job)
            .map_err(|e| QueueError::Internal(format!("encoding a job: {e}")))?;
        let (pool, queue) = (self.pool.clone(), self.queue.clone());
        on_queue_thread(async move {
            sqlx::query("INSERT INTO parley_jobs (queue, payload) VALUES (?1, ?2)")
                .bind(queue)
                .bind(payload)
                .execute(&pool)
                .await
                .map_err(|e| sqlx_error("enqueueing a job", e))
        })
        .await?;
        self.wake_consumers();
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        let (pool, queue) = (self.pool.clone(), self.queue.clone());
        let count: i64 = on_queue_thread(async move {
            sqlx::query_scalar(
                "SELECT COUNT(*) FROM parley_jobs WHERE queue = ?1 AND worker IS NULL",
            )
            .bind(queue)
            .fetch_one(&pool)
            .await
            .map_err(|e| sqlx_error("reading the queue depth", e))
        })
        .await?;
        Ok(count.max(0) as u64)
    }

    async fn ready(&self) -> Result<(), QueueError> {
        let pool = self.pool.clone();
        on_queue_thread(async move {
            sqlx::query("SELECT 1")
                .execute(&pool)
                .await
                .map(drop)
                .map_err(|e| sqlx_error("querying the queue file", e))
        })
        .await
    }

    /// The queue is a file beside the database: it does not lose jobs on its own.
    async fn epoch(&self) -> Result<Option<String>, QueueError> {
        Ok(None)
    }
}

/// How often the queue's WAL is checkpointed.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// SQLite checkpoints a WAL in the commit that takes it past 1,000 pages: at 400 turns/s
/// (three commits a job) that was every second or so, an `fsync` on the queue's one
/// connection that every enqueue (a turn's create) and fetch (its start) then waited for
/// (#9, as for the main database: `cli/src/db.rs`). The queue checkpoints its WAL every
/// [`CHECKPOINT_EVERY`] on a connection of its own instead (`PASSIVE`: no one waits for
/// it), for as long as a handle to the queue (`alive`) lives.
fn spawn_checkpointer(options: SqliteConnectOptions, alive: Weak<PathBuf>) {
    spawn_wal_checkpointer(options, CHECKPOINT_EVERY, move || alive.strong_count() > 0);
}

/// Runs `PRAGMA wal_checkpoint(PASSIVE)` on the SQLite file of `options` every `every`, on
/// a connection of its own, while `alive()` holds — for a file whose connections set
/// `wal_autocheckpoint = 0` (this queue's; embedded mode's database, `cli/src/db.rs`).
/// A `PASSIVE` checkpoint takes no lock a writer or reader waits for.
pub fn spawn_wal_checkpointer(
    options: SqliteConnectOptions,
    every: Duration,
    alive: impl Fn() -> bool + Send + 'static,
) {
    let file = options.get_filename().display().to_string();
    let pool = SqlitePoolOptions::new()
        .max_connections(1)
        .test_before_acquire(false)
        .idle_timeout(None)
        .max_lifetime(None)
        .connect_lazy_with(options);
    tokio::spawn(async move {
        let mut ticks = tokio::time::interval(every);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            ticks.tick().await;
            if !alive() {
                break;
            }
            if let Err(e) = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
                .execute(&pool)
                .await
            {
                warn!(%file, error = %e, "checkpointing a WAL failed");
            }
        }
        pool.close().await;
    });
}

/// Runs `statements` (on the queue's connection) on the queue's own thread, which runs
/// nothing else; the caller waits for the result. The statements run to the end even if
/// the caller stops waiting (as a statement already sent would).
///
/// The queue has one connection (see the module doc). On the runtime's threads, each
/// statement's task had to be polled again before the connection went back to the pool,
/// and the next waiter's task before it could send its statement: with the turns'
/// streaming work keeping both threads busy, the connection spent most of its time
/// waiting for them. At C = 32 in `parley serve` a job waited 33 ms (median) between its
/// enqueue and its claim (BENCHMARKS.md, #9).
async fn on_queue_thread<T, F>(statements: F) -> Result<T, QueueError>
where
    F: Future<Output = Result<T, QueueError>> + Send + 'static,
    T: Send + 'static,
{
    static THREAD: OnceLock<tokio::runtime::Handle> = OnceLock::new();
    let handle = THREAD.get_or_init(|| {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("the job queue's runtime starts");
        let handle = runtime.handle().clone();
        std::thread::Builder::new()
            .name("parley-queue".into())
            .spawn(move || runtime.block_on(std::future::pending::<()>()))
            .expect("the job queue's thread starts");
        handle
    });
    match handle.spawn(statements).await {
        Ok(result) => result,
        Err(e) if e.is_panic() => std::panic::resume_unwind(e.into_panic()),
        Err(e) => Err(QueueError::Internal(format!("a job queue statement: {e}"))),
    }
}

/// Milliseconds since the epoch: the heartbeat clock (workers sharing a file share a
/// machine, hence a clock).
fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

/// Maps a sqlx error: the file or the pool out of reach → `Unavailable`, else `Internal`.
fn sqlx_error(doing: &str, error: sqlx::Error) -> QueueError {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed => {
            QueueError::Unavailable(format!("{doing}: {error}"))
        }
        sqlx::Error::Database(ref db) if db.message().contains("locked") => {
            QueueError::Unavailable(format!("{doing}: {error}"))
        }
        _ => QueueError::Internal(format!("{doing}: {error}")),
    }
}

#[cfg(test)]
mod tests;
