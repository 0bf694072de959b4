//! The SQLite job queue (embedded mode): an `apalis-sqlite` storage in a SQLite file of
//! its own (`<data_dir>/queue.db`), apart from the application database.
//!
//! [`SqliteQueue::open`] creates the file on first use and runs apalis-sqlite's
//! migrations. The file is in WAL mode with `synchronous = NORMAL`: a committed job
//! survives the process being killed (only an OS crash can lose the last commits).
//! apalis-sqlite's own `setup` is not used: it turns `synchronous` off.
//!
//! Consumers are woken in-process by [`SqliteQueue::enqueue`] (the api and the workers of
//! `parley serve` share one `SqliteQueue`); a job written by another process is found by
//! the [`ConsumerConfig::poll_interval`] poll. Orphans: jobs of a worker whose heartbeat
//! is `heartbeat × missed_heartbeats` old go back to `Pending` on another worker's
//! heartbeat — also a worker of the restarted process (see [`super`]).

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use apalis::prelude::{BackendExt, TaskSink, TaskSinkError, WorkerBuilder, WorkerBuilderExt};
use apalis_core::worker::context::WorkerContext;
use apalis_sqlite::{Config, SqliteStorage};
use async_trait::async_trait;
use parley_protocol::jobs::Generate;
use sqlx::SqlitePool;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use tokio::sync::watch;

use super::consumer::{JobContext, WakeOrTick, drive, process};
use super::{ConsumerConfig, DEFAULT_QUEUE, JobQueue, QueueError};

/// Finished jobs are kept this long before [`SqliteQueue::purge_finished`] drops them.
const KEEP_FINISHED: Duration = Duration::from_secs(3600);

/// The SQLite [`JobQueue`]. Cheap to clone; clones share the pool and the wake-ups.
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
            .busy_timeout(Duration::from_secs(5));
        // One connection: every statement of the queue writes (apalis-sqlite's fetch is
        // an UPDATE, and so are lock, ack and heartbeat), and SQLite writes one at a
        // time. With four, the losers slept in SQLite's busy handler (up to 100 ms a
        // try) and an enqueue could take a second at C = 50; with one they queue in the
        // pool and each statement takes well under a millisecond (BENCHMARKS.md, #9).
        let pool = SqlitePoolOptions::new()
            .max_connections(1)
            .connect_with(options)
            .await
            .map_err(|e| sqlx_error(&format!("opening {}", path.display()), e))?;
        SqliteStorage::migrations()
            .run(&pool)
            .await
            .map_err(|e| QueueError::Internal(format!("migrating {}: {e}", path.display())))?;
        Ok(Self {
            pool,
            path: Arc::new(path),
            queue: DEFAULT_QUEUE.into(),
            wake: Arc::new(watch::channel(0).0),
        })
    }

    /// The same file on another queue (namespace).
    pub fn with_queue(mut self, queue: impl Into<String>) -> Self {
        self.queue = queue.into();
        self
    }

    fn config(&self) -> Config {
        Config::default().queue(&self.queue).batch_size(1) // a worker holds only what it runs
    }

    fn storage(&self, config: Config) -> SqliteStorage<Generate> {
        SqliteStorage::new(&self.pool).with_config(config)
    }

    /// Runs one apalis worker named `name` until it fails or `stop` turns true.
    pub(crate) async fn run_worker(
        &self,
        name: &str,
        config: &ConsumerConfig,
        job_context: &JobContext,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), QueueError> {
        let strategy = WakeOrTick::new(self.wake.subscribe(), config.poll_interval, None);
        let storage = self
            .storage(
                self.config()
                    .heartbeat_interval(config.heartbeat.max(Duration::from_secs(1)))
                    .missed_heartbeats(config.missed_heartbeats.max(1) as usize),
            )
            .poll_with_strategy(strategy);
        let worker = WorkerContext::new(name);
        let run = WorkerBuilder::new(&worker)
            .backend(storage)
            .data(job_context.clone())
            .concurrency(config.concurrency.max(1))
            .build(process)
            .run();
        drive(worker, run, stop, config.shutdown_timeout)
            .await
            .map_err(|e| QueueError::Unavailable(format!("job worker {name}: {e}")))
    }

    /// Drops this queue's finished jobs older than an hour, and workers dead for a day
    /// that hold no job.
    pub(crate) async fn purge_finished(&self) -> Result<u64, QueueError> {
        let keep = KEEP_FINISHED.as_secs() as i64;
        let jobs = sqlx::query(
            "DELETE FROM Jobs WHERE job_type = ?1 AND done_at < strftime('%s', 'now') - ?2 \
             AND (status IN ('Done', 'Killed') OR (status = 'Failed' AND attempts >= max_attempts))",
        )
        .bind(&self.queue)
        .bind(keep)
        .execute(&self.pool)
        .await
        .map_err(|e| sqlx_error("purging finished jobs", e))?;
        sqlx::query(
            "DELETE FROM Workers WHERE worker_type = ?1 AND last_seen < strftime('%s', 'now') - 86400 \
             AND id NOT IN (SELECT lock_by FROM Jobs WHERE lock_by IS NOT NULL)",
        )
        .bind(&self.queue)
        .execute(&self.pool)
        .await
        .map_err(|e| sqlx_error("purging dead workers", e))?;
        Ok(jobs.rows_affected())
    }
}

#[async_trait]
impl JobQueue for SqliteQueue {
    async fn enqueue(&self, job: Generate) -> Result<(), QueueError> {
        let mut storage = self.storage(self.config());
        storage.push(job).await.map_err(|e| match e {
            TaskSinkError::PushError(apalis_sqlite::Error::Database(e)) => {
                sqlx_error("enqueueing a job", e)
            }
            other => QueueError::Internal(format!("enqueueing a job: {other}")),
        })?;
        self.wake.send_modify(|n| *n = n.wrapping_add(1));
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        let count: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM Jobs WHERE job_type = ?1 \
             AND (status = 'Pending' OR (status = 'Failed' AND attempts < max_attempts))",
        )
        .bind(&self.queue)
        .fetch_one(&self.pool)
        .await
        .map_err(|e| sqlx_error("reading the queue depth", e))?;
        Ok(count.max(0) as u64)
    }

    async fn ready(&self) -> Result<(), QueueError> {
        sqlx::query("SELECT 1")
            .execute(&self.pool)
            .await
            .map(drop)
            .map_err(|e| sqlx_error("querying the queue file", e))
    }
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
