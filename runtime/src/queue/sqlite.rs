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
//! the [`ConsumerConfig::poll_interval`] poll. A fetch takes as many waiting jobs as the
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

use std::collections::VecDeque;
use std::fmt;
use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_trait::async_trait;
use parley_protocol::jobs::Generate;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tracing::warn;

use super::consumer::{
    ConsumerPool, JobContext, Next, drain, fetch_loop, sleep_unless_stopped, stopped,
};
use super::{ConsumerConfig, DEFAULT_QUEUE, JobQueue, QueueError};

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
            // A local file has no peer to lose: no ping (a round trip) on each checkout.
            .test_before_acquire(false)
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

    /// Runs one pool of consumers named `name` until `stop` turns true, then lets running
    /// jobs finish (for up to `shutdown_timeout`) and leaves.
    pub(crate) async fn run_worker(
        &self,
        name: &str,
        config: &ConsumerConfig,
        context: &JobContext,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), QueueError> {
        let pool = Arc::new(Pool {
            queue: self.clone(),
            name: name.to_owned(),
            held: Mutex::default(),
            fetched: Mutex::default(),
            drained: AtomicBool::new(false),
            stray: AtomicBool::new(false),
        });
        // Registered before the first fetch: a job this worker takes is reaped if it dies.
        pool.heartbeat(config).await?;
        let heartbeats = async {
            let every = config.heartbeat.max(Duration::from_secs(1));
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = pool.heartbeat(config).await {
                    warn!(worker = %name, error = %e, "job worker heartbeat failed");
                }
            }
        };
        let work = async {
            let mut jobs = JoinSet::new();
            let mut wake = pool.queue.wake.subscribe();
            fetch_loop(&pool, &mut wake, config, context, stop, &mut jobs).await;
            drain(&mut jobs, config.shutdown_timeout, name, context).await;
        };
        tokio::select! {
            () = work => {}
            () = heartbeats => {}
        }
        pool.leave().await;
        Ok(())
    }
}

#[async_trait]
impl JobQueue for SqliteQueue {
    async fn enqueue(&self, job: Generate) -> Result<(), QueueError> {
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

/// One pool of consumers: what its fetch loop, job tasks and heartbeat share.
struct Pool {
    queue: SqliteQueue,
    name: String,
    /// The ids of the jobs taken and not yet acknowledged or handed back.
    held: Mutex<Vec<i64>>,
    /// Jobs taken by the last fetch and not handed out yet (oldest first).
    fetched: Mutex<VecDeque<(i64, String)>>,
    /// The last fetch found fewer jobs than it could take: the queue was empty then, and
    /// the next fetch waits for a wake-up or the poll first.
    drained: AtomicBool,
    /// The table may show jobs as this worker's that no job of it holds (a settle
    /// failed): reconcile before the next fetch.
    stray: AtomicBool,
}

impl Pool {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<i64>> {
        self.held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    fn release(&self, id: i64) {
        let mut held = self.lock();
        if let Some(at) = held.iter().position(|h| *h == id) {
            held.swap_remove(at);
        }
    }

    /// Records this worker's heartbeat and hands the jobs of dead workers back, in one
    /// transaction.
    async fn heartbeat(&self, config: &ConsumerConfig) -> Result<(), QueueError> {
        let dead_after =
            config.heartbeat.max(Duration::from_secs(1)) * config.missed_heartbeats.max(1);
        let now = now_ms();
        let cutoff = now - dead_after.as_millis() as i64;
        let (pool, queue, name) = self.statement_parts();
        let reaped = on_queue_thread(async move {
            let failed = |e| sqlx_error("recording a heartbeat", e);
            let mut tx = pool.begin().await.map_err(failed)?;
            sqlx::query(
                "INSERT INTO parley_job_workers (queue, name, last_seen_ms) VALUES (?1, ?2, ?3) \
                 ON CONFLICT (queue, name) DO UPDATE SET last_seen_ms = excluded.last_seen_ms",
            )
            .bind(&queue)
            .bind(&name)
            .bind(now)
            .execute(&mut *tx)
            .await
            .map_err(failed)?;
            // Jobs of a worker that missed its heartbeats, or that is not registered at all.
            let reaped = sqlx::query(
                "UPDATE parley_jobs SET worker = NULL WHERE queue = ?1 AND worker IS NOT NULL \
                 AND worker NOT IN \
                 (SELECT name FROM parley_job_workers WHERE queue = ?1 AND last_seen_ms >= ?2)",
            )
            .bind(&queue)
            .bind(cutoff)
            .execute(&mut *tx)
            .await
            .map_err(failed)?
            .rows_affected();
            sqlx::query("DELETE FROM parley_job_workers WHERE queue = ?1 AND last_seen_ms < ?2")
                .bind(&queue)
                .bind(cutoff)
                .execute(&mut *tx)
                .await
                .map_err(failed)?;
            tx.commit().await.map_err(failed)?;
            Ok(reaped)
        })
        .await?;
        if reaped > 0 {
            warn!(worker = %self.name, jobs = reaped, "handed back the jobs of dead job workers");
            self.queue.wake_consumers();
        }
        Ok(())
    }

    /// What a statement of this pool needs, owned (it runs on the queue's thread).
    fn statement_parts(&self) -> (SqlitePool, String, String) {
        (
            self.queue.pool.clone(),
            self.queue.queue.clone(),
            self.name.clone(),
        )
    }

    fn fetched(&self) -> std::sync::MutexGuard<'_, VecDeque<(i64, String)>> {
        self.fetched
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Takes the oldest waiting jobs, at most `most`, in one statement; oldest first.
    async fn fetch(&self, most: usize) -> Result<Vec<(i64, String)>, QueueError> {
        let (pool, queue, name) = self.statement_parts();
        let most = i64::try_from(most.max(1)).unwrap_or(i64::MAX);
        let mut jobs: Vec<(i64, String)> = on_queue_thread(async move {
            sqlx::query_as(
                "UPDATE parley_jobs SET worker = ?1 WHERE id IN \
                 (SELECT id FROM parley_jobs WHERE queue = ?2 AND worker IS NULL \
                 ORDER BY id LIMIT ?3) \
                 RETURNING id, payload",
            )
            .bind(name)
            .bind(queue)
            .bind(most)
            .fetch_all(&pool)
            .await
            .map_err(|e| sqlx_error("fetching jobs", e))
        })
        .await?;
        // `RETURNING` promises no order.
        jobs.sort_unstable_by_key(|(id, _)| *id);
        self.lock().extend(jobs.iter().map(|(id, _)| *id));
        Ok(jobs)
    }

    /// Acknowledges a finished job (deletes it), or hands back an interrupted one.
    async fn settle(&self, id: i64, done: bool) {
        let sql = if done {
            "DELETE FROM parley_jobs WHERE id = ?1 AND worker = ?2"
        } else {
            "UPDATE parley_jobs SET worker = NULL WHERE id = ?1 AND worker = ?2"
        };
        let (pool, _, name) = self.statement_parts();
        let settled = on_queue_thread(async move {
            sqlx::query(sql)
                .bind(id)
                .bind(name)
                .execute(&pool)
                .await
                .map_err(|e| sqlx_error("settling a job", e))
        })
        .await;
        self.release(id);
        match settled {
            Ok(_) if !done => self.queue.wake_consumers(),
            Ok(_) => {}
            Err(e) => {
                // Still this worker's: the next reconcile hands it back (a finished job
                // runs again as a no-op: jobs are idempotent).
                warn!(worker = %self.name, error = %e, "could not settle a job; it will be handed back");
                self.stray.store(true, Ordering::SeqCst);
            }
        }
    }

    /// Deregisters the worker, handing back whatever it still holds (jobs abandoned at the
    /// shutdown deadline), in one transaction.
    async fn leave(&self) {
        let (pool, queue, name) = self.statement_parts();
        let left = on_queue_thread(async move {
            let left = async {
                let mut tx = pool.begin().await?;
                sqlx::query("UPDATE parley_jobs SET worker = NULL WHERE worker = ?1")
                    .bind(&name)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM parley_job_workers WHERE queue = ?1 AND name = ?2")
                    .bind(&queue)
                    .bind(&name)
                    .execute(&mut *tx)
                    .await?;
                tx.commit().await
            };
            left.await.map_err(|e| sqlx_error("deregistering", e))
        });
        self.fetched().clear();
        if let Err(e) = left.await {
            warn!(worker = %self.name, error = %e, "could not deregister the job worker");
        }
    }
}

impl ConsumerPool for Pool {
    type Taken = i64;
    /// Told of every enqueue and hand-back in this process, so a consumer waiting for a
    /// job wakes at once; the poll covers other processes on the same file.
    type Fetcher = watch::Receiver<u64>;

    fn worker(&self) -> &str {
        &self.name
    }

    fn stray(&self) -> bool {
        self.stray.load(Ordering::SeqCst)
    }

    /// Hands back the jobs the table shows as this worker's that no job of it holds.
    async fn reconcile(&self) -> Result<(), QueueError> {
        let failed = |e| sqlx_error("reconciling taken jobs", e);
        let (pool, _, name) = self.statement_parts();
        let taken: Vec<i64> = on_queue_thread(async move {
            sqlx::query_scalar("SELECT id FROM parley_jobs WHERE worker = ?1")
                .bind(name)
                .fetch_all(&pool)
                .await
                .map_err(failed)
        })
        .await?;
        let stray: Vec<i64> = {
            let held = self.lock();
            taken.into_iter().filter(|id| !held.contains(id)).collect()
        };
        for id in stray.iter().copied() {
            let (pool, _, name) = self.statement_parts();
            on_queue_thread(async move {
                sqlx::query("UPDATE parley_jobs SET worker = NULL WHERE id = ?1 AND worker = ?2")
                    .bind(id)
                    .bind(name)
                    .execute(&pool)
                    .await
                    .map_err(failed)
            })
            .await?;
        }
        if !stray.is_empty() {
            warn!(worker = %self.name, jobs = stray.len(), "handed back jobs no consumer held");
            self.queue.wake_consumers();
        }
        self.stray.store(false, Ordering::SeqCst);
        Ok(())
    }

    async fn next(
        &self,
        wake: &mut watch::Receiver<u64>,
        config: &ConsumerConfig,
        stop: &watch::Receiver<bool>,
        room: usize,
    ) -> Next<i64> {
        if let Some((taken, payload)) = self.fetched().pop_front() {
            return Next::Job { taken, payload };
        }
        if self.drained.load(Ordering::SeqCst) {
            // The last fetch emptied the queue; an enqueue since wakes this wait at once.
            tokio::select! {
                _ = wake.changed() => {}
                () = tokio::time::sleep(config.poll_interval) => {}
                () = stopped(stop) => return Next::Stopped,
            }
        }
        // Seen before the fetch: an enqueue that lands after it wakes the wait above.
        wake.borrow_and_update();
        match self.fetch(room).await {
            Ok(jobs) => {
                self.drained.store(jobs.len() < room, Ordering::SeqCst);
                let mut jobs = jobs.into_iter();
                let Some((taken, payload)) = jobs.next() else {
                    return Next::Again;
                };
                self.fetched().extend(jobs);
                Next::Job { taken, payload }
            }
            Err(e) => {
                warn!(worker = %self.name, error = %e, "fetching a job failed");
                if sleep_unless_stopped(config.restart_delay, stop).await {
                    Next::Stopped
                } else {
                    Next::Again
                }
            }
        }
    }

    async fn settle(&self, job: &i64, done: bool) {
        Pool::settle(self, *job, done).await;
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
mod tests {
    use super::super::conformance::{self, Harness};
    use super::*;

    async fn harness() -> Harness {
        let dir = tempfile::tempdir().expect("a temp dir");
        let path = dir.path().join("data").join("queue.db");
        Harness::new(move || {
            let path = path.clone();
            async move {
                let q = SqliteQueue::open(&path).await.expect("open the queue file");
                super::super::QueueBackend::Sqlite(q)
            }
        })
        .keep(dir)
    }

    conformance::conformance_suite!(harness);

    async fn rows(queue: &SqliteQueue, sql: &'static str) -> i64 {
        sqlx::query_scalar(sql)
            .fetch_one(&queue.pool)
            .await
            .expect("count rows")
    }

    /// No commit checkpoints the queue's WAL; the checkpointer does, so the WAL starts
    /// over after a pause instead of growing until a commit takes it past 1,000 pages.
    #[tokio::test]
    async fn the_wal_is_checkpointed_in_the_background() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let queue = SqliteQueue::open(dir.path().join("queue.db"))
            .await
            .expect("open the queue file");
        // Hundreds of commits, fewer than 1,000 pages: SQLite itself would not have
        // checkpointed them yet.
        for _ in 0..300 {
            queue
                .enqueue(Generate::new(uuid::Uuid::now_v7()))
                .await
                .expect("enqueue");
        }
        let wal = dir.path().join("queue.db-wal");
        let written = std::fs::metadata(&wal).expect("the WAL file").len();
        assert!(
            written >= 300 * 4096,
            "each enqueue is a commit in the WAL: {written} bytes"
        );
        // The checkpointer copies them all; the next commit starts the WAL over (the
        // file is reused, so its size stays: its frames in use tell).
        tokio::time::sleep(CHECKPOINT_EVERY * 3).await;
        queue
            .enqueue(Generate::new(uuid::Uuid::now_v7()))
            .await
            .expect("enqueue");
        let (_, after, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
            .fetch_one(&queue.pool)
            .await
            .expect("the WAL's frames");
        assert!(after < 10, "the WAL started over: {after} frames");
    }

    /// The file holds only what is still to do: a finished or given-up job leaves no row,
    /// and a worker that left no registration.
    #[tokio::test]
    async fn settled_jobs_and_stopped_workers_leave_nothing_behind() {
        use super::super::conformance::{Consumers, Recorder, test_config, wait_until};
        use super::super::{JobFailure, QueueBackend};
        let dir = tempfile::tempdir().expect("a temp dir");
        let queue = SqliteQueue::open(dir.path().join("queue.db"))
            .await
            .expect("open");
        let doomed = uuid::Uuid::now_v7();
        let recorder = Recorder::new(move |id, _| async move {
            if id == doomed {
                Err(JobFailure::Permanent("gone".into()))
            } else {
                Ok(())
            }
        });
        let backend = QueueBackend::Sqlite(queue.clone());
        let consumers = Consumers::start(&backend, test_config(), recorder.clone());
        queue.enqueue(Generate::new(doomed)).await.expect("enqueue");
        for _ in 0..9 {
            let job = Generate::new(uuid::Uuid::now_v7());
            queue.enqueue(job).await.expect("enqueue");
        }
        wait_until("every job ran", Duration::from_secs(10), || {
            recorder.finished() == 10 && recorder.calls(doomed) == 1
        })
        .await;
        assert_eq!(
            rows(&queue, "SELECT COUNT(*) FROM parley_job_workers").await,
            1
        );
        consumers.stop().await;
        assert_eq!(rows(&queue, "SELECT COUNT(*) FROM parley_jobs").await, 0);
        assert_eq!(
            rows(&queue, "SELECT COUNT(*) FROM parley_job_workers").await,
            0
        );
    }

    /// One fetch takes as many waiting jobs as the pool has room for, oldest first, and
    /// hands them out one by one; once a fetch has emptied the queue, the next waits for a
    /// wake-up, and an enqueue since that fetch (in-process) or the poll (another process's
    /// insert) still finds its job.
    #[tokio::test]
    async fn a_fetch_takes_the_waiting_jobs_there_is_room_for_and_no_job_is_missed_after_one() {
        use super::super::consumer::{ConsumerPool, Next};
        let dir = tempfile::tempdir().expect("a temp dir");
        let queue = SqliteQueue::open(dir.path().join("queue.db"))
            .await
            .expect("open");
        let ids: Vec<uuid::Uuid> = (0..5).map(|_| uuid::Uuid::now_v7()).collect();
        for id in &ids {
            queue.enqueue(Generate::new(*id)).await.expect("enqueue");
        }
        let pool = Pool {
            queue: queue.clone(),
            name: "w".into(),
            held: Mutex::default(),
            fetched: Mutex::default(),
            drained: AtomicBool::new(false),
            stray: AtomicBool::new(false),
        };
        let mut wake = queue.wake.subscribe();
        let (_stop, stop) = watch::channel(false);
        let taken_by_w = "SELECT COUNT(*) FROM parley_jobs WHERE worker = 'w'";
        // The next job with room for `room` and a poll every `poll` ms.
        let mut next_polling = async |room, poll| {
            let config = ConsumerConfig {
                poll_interval: Duration::from_millis(poll),
                ..ConsumerConfig::default()
            };
            match pool.next(&mut wake, &config, &stop, room).await {
                Next::Job { payload, .. } => {
                    serde_json::from_str::<Generate>(&payload)
                        .expect("a job")
                        .prompt_id
                }
                Next::Again => uuid::Uuid::nil(),
                Next::Stopped => panic!("not stopped"),
            }
        };
        let mut next = async |room| next_polling(room, 60_000).await;
        assert_eq!(next(3).await, ids[0]);
        assert_eq!(rows(&queue, taken_by_w).await, 3, "one fetch took three");
        assert_eq!(next(1).await, ids[1]);
        assert_eq!(next(1).await, ids[2]);
        assert_eq!(
            rows(&queue, taken_by_w).await,
            3,
            "handed out without a fetch"
        );
        assert_eq!(next(8).await, ids[3], "the last two, fewer than the room");
        assert_eq!(next(8).await, ids[4]);
        assert_eq!(pool.lock().len(), 5, "all five held");
        // The queue was emptied: an enqueue since then wakes the wait at once.
        let late = uuid::Uuid::now_v7();
        queue.enqueue(Generate::new(late)).await.expect("enqueue");
        let found = tokio::time::timeout(Duration::from_secs(5), next(8)).await;
        assert_eq!(found.expect("found without the (60 s) poll"), late);
        // Another process's job (no wake-up) is found by the poll.
        let other = uuid::Uuid::now_v7();
        let payload = serde_json::to_string(&Generate::new(other)).expect("encode");
        sqlx::query("INSERT INTO parley_jobs (queue, payload) VALUES (?1, ?2)")
            .bind(&queue.queue)
            .bind(payload)
            .execute(&queue.pool)
            .await
            .expect("insert");
        let mut found = uuid::Uuid::nil();
        for _ in 0..3 {
            found = next_polling(8, 100).await;
            if found == other {
                break;
            }
        }
        assert_eq!(found, other, "found by the poll");
        assert_eq!(rows(&queue, taken_by_w).await, 7);
    }

    #[tokio::test]
    async fn open_fails_where_no_file_can_be() {
        let dir = tempfile::tempdir().expect("a temp dir");
        let blocker = dir.path().join("not-a-dir");
        std::fs::write(&blocker, b"").expect("write a file");
        let err = SqliteQueue::open(blocker.join("queue.db"))
            .await
            .unwrap_err();
        assert!(matches!(err, QueueError::Unavailable(_)), "{err:?}");
    }
}
