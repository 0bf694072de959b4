//! The job queue seam (DESIGN §1, §10): carries [`PromptJob`] jobs from the api to the
//! workers.
//!
//! The api [enqueues](JobQueue::enqueue) one job per accepted turn; workers run
//! [`run_consumers`], which hands each job to a [`JobHandler`] through an apalis 1.0
//! worker (built with apalis's worker builder, supervised by its monitor, with tower's
//! tracing, concurrency and timeout layers: see `queue::worker`). Two backends, chosen at
//! start-up and wrapped in [`QueueBackend`], each an apalis backend there:
//!
//! * [`RedisQueue`] (distributed mode): Parley's own, on Redis lists (three commands per
//!   job); any number of api and worker processes share one Redis.
//! * [`SqliteQueue`] (embedded mode): Parley's own, on a table in its own SQLite file
//!   (`<data_dir>/queue.db`, three statements per job), so a job accepted before `parley
//!   serve` dies is still there after the restart.
//!
//! Guarantees (checked against both by `conformance` (its tests)):
//!
//! * **At-least-once.** A job is acknowledged only after its handler returned; a job can
//!   run twice (a worker died mid-run, a shutdown interrupted a retry wait), so handlers
//!   must be idempotent — the pipeline makes a job for a terminal prompt a no-op.
//! * **Bounded retries with backoff.** [`JobFailure::Retry`] runs the handler again after
//!   an exponential [`Backoff`], up to [`ConsumerConfig::max_attempts`] runs per delivery;
//!   then the job is given up. [`JobFailure::Permanent`] (and a panic) gives up at once.
//!   Given-up jobs are acknowledged like finished ones and never re-delivered.
//! * **Concurrency** per consumer pool is at most [`ConsumerConfig::concurrency`].
//! * **A job timeout.** A run longer than [`ConsumerConfig::job_timeout`] is stopped, its
//!   handler told to let go ([`JobHandler::hand_back`]), and the job given up.
//! * **Graceful shutdown.** When the shutdown future resolves, no new job is taken,
//!   running ones finish (for up to [`ConsumerConfig::shutdown_timeout`], the drain
//!   deadline), and jobs a worker had fetched but not started go back to the queue. Jobs
//!   still running at the deadline are interrupted (their run is dropped), told to let go
//!   of what they hold ([`JobHandler::hand_back`]) and go back to the front of the
//!   queue, so another worker runs them at once.
//!
//! Orphans — a job whose worker died mid-run. Both backends keep a per-worker heartbeat
//! (every [`ConsumerConfig::heartbeat`]); once a worker has missed
//! [`ConsumerConfig::missed_heartbeats`] of them, the next heartbeat of any *other*
//! worker on the queue puts its jobs back in the queue, so they run again elsewhere
//! (Redis: the worker's running list is moved to the front of the pending list; SQLite:
//! its rows are marked waiting again, ahead of newer jobs). A restarted process registers
//! a new worker (names carry a fresh suffix), so its own first heartbeat recovers what the
//! dead one held. A job is back in the queue about `heartbeat × missed_heartbeats` after
//! its worker's last heartbeat, plus up to one heartbeat. Re-deliveries after a death are not counted against
//! `max_attempts`; the caller's prompt state machine and its reaper bound those.

use std::time::Duration;

use async_trait::async_trait;
use parley_protocol::jobs::PromptJob;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
mod consumer;
pub mod redis;
pub mod sqlite;
mod worker;

pub use self::consumer::{JobOutcome, run_job};
pub use self::redis::RedisQueue;
pub use self::sqlite::SqliteQueue;
pub use self::worker::run_consumers;

/// The queue (namespace) Parley's turns go through unless told otherwise.
pub const DEFAULT_QUEUE: &str = "parley-generate";

/// Why a queue operation failed, grouped by what the caller must do about it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum QueueError {
    /// The backend cannot be reached (Redis down or timing out, the SQLite file
    /// unreachable). The api answers `503`; retrying later may succeed.
    #[error("the job queue is unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a bug, a payload that does not encode, a corrupt store.
    #[error("job queue failure: {0}")]
    Internal(String),
}

/// The producer side of the queue, and its health. Object safe: the api holds an
/// `Arc<dyn JobQueue>` chosen at start-up.
#[async_trait]
pub trait JobQueue: Send + Sync {
    /// Stores the job durably; it runs once a consumer takes it. Consumers are woken
    /// right away (Redis pub/sub; in-process for SQLite), not on their next poll.
    async fn enqueue(&self, job: PromptJob) -> Result<(), QueueError>;

    /// How many jobs wait to be taken (not counting running ones): the signal for
    /// metrics and worker autoscaling. One cheap query on either backend.
    async fn depth(&self) -> Result<u64, QueueError>;

    /// Whether the backend answers (for `/readyz`).
    async fn ready(&self) -> Result<(), QueueError>;

    /// The identity of the queue's stored state: it changes when the backend lost what
    /// it held (a Redis restarted without persistence, or flushed), which takes queued
    /// jobs with it. Workers reap at once when it changes. `None`: a backend that does
    /// not lose its jobs on its own (SQLite).
    async fn epoch(&self) -> Result<Option<String>, QueueError>;
}

/// What a job handler reports when a run did not succeed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobFailure {
    /// Transient (provider down, database busy): run again after a backoff, as long as
    /// attempts are left.
    Retry(String),
    /// Will never succeed (the prompt is gone, the payload is invalid): give up now.
    Permanent(String),
}

/// Runs one job. Called once per attempt; must be idempotent (jobs are at-least-once).
#[async_trait]
pub trait JobHandler: Send + Sync {
    async fn handle(&self, job: PromptJob) -> Result<(), JobFailure>;

    /// A shutdown's drain deadline interrupted `job` mid-run (its run was dropped): let
    /// go of what it holds, so that whoever takes it next need not wait. The job itself
    /// goes back to the queue.
    async fn hand_back(&self, _job: &PromptJob) {}
}

/// Exponential backoff between the attempts of one job: `initial`, `2 × initial`, …,
/// never more than `max`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Backoff {
    pub initial: Duration,
    pub max: Duration,
}

impl Backoff {
    /// The wait after the `attempt`-th failed run (1-based).
    pub fn delay(&self, attempt: u32) -> Duration {
        let factor = 2u32.saturating_pow(attempt.saturating_sub(1));
        self.initial.saturating_mul(factor).min(self.max)
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self {
            initial: Duration::from_secs(1),
            max: Duration::from_secs(30),
        }
    }
}

/// How a pool of consumers runs. `Default` fits production; tests shorten the timings.
#[derive(Debug, Clone)]
pub struct ConsumerConfig {
    /// Prefix of the worker's name in the backend (a fresh suffix is added per start).
    pub name: String,
    /// Jobs run at the same time by this pool.
    pub concurrency: usize,
    /// Runs of one job per delivery before it is given up (at least 1).
    pub max_attempts: u32,
    pub backoff: Backoff,
    /// Interval of the worker heartbeat (at least 1 s).
    pub heartbeat: Duration,
    /// Heartbeats a worker may miss before its jobs are handed to others.
    pub missed_heartbeats: u32,
    /// SQLite: fallback poll for jobs no wake-up announced (re-enqueued orphans, jobs
    /// written by another process into the file). Redis needs none: a push wakes a
    /// waiting worker, whose wait lasts a heartbeat at most.
    pub poll_interval: Duration,
    /// How long a shutdown waits for running jobs before handing them back to the
    /// queue (the drain deadline).
    pub shutdown_timeout: Duration,
    /// Pause before a worker that failed (backend unreachable) is started again, and
    /// between two fetches that failed.
    pub restart_delay: Duration,
    /// The longest one job may run (all its attempts): past it the run is stopped, the
    /// handler lets go of the job ([`JobHandler::hand_back`]) and the job is given up. A
    /// safety net for a run that hangs; a turn's own deadlines end it long before.
    pub job_timeout: Duration,
}

impl Default for ConsumerConfig {
    fn default() -> Self {
        Self {
            name: "parley-worker".into(),
            concurrency: 8,
            max_attempts: 3,
            backoff: Backoff::default(),
            heartbeat: Duration::from_secs(10),
            missed_heartbeats: 3,
            poll_interval: Duration::from_secs(1),
            shutdown_timeout: Duration::from_secs(30),
            restart_delay: Duration::from_secs(1),
            job_timeout: Duration::from_secs(3600),
        }
    }
}

/// The backend chosen at start-up. Cheap to clone; both variants share their connections.
#[derive(Clone, Debug)]
pub enum QueueBackend {
    Redis(RedisQueue),
    Sqlite(SqliteQueue),
}

#[async_trait]
impl JobQueue for QueueBackend {
    async fn enqueue(&self, job: PromptJob) -> Result<(), QueueError> {
        match self {
            Self::Redis(q) => q.enqueue(job).await,
            Self::Sqlite(q) => q.enqueue(job).await,
        }
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        match self {
            Self::Redis(q) => q.depth().await,
            Self::Sqlite(q) => q.depth().await,
        }
    }

    async fn ready(&self) -> Result<(), QueueError> {
        match self {
            Self::Redis(q) => q.ready().await,
            Self::Sqlite(q) => q.ready().await,
        }
    }

    async fn epoch(&self) -> Result<Option<String>, QueueError> {
        match self {
            Self::Redis(q) => q.epoch().await,
            Self::Sqlite(q) => q.epoch().await,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_up_to_the_cap() {
        let b = Backoff {
            initial: Duration::from_millis(100),
            max: Duration::from_millis(350),
        };
        let delays: Vec<_> = (1..=5).map(|a| b.delay(a).as_millis()).collect();
        assert_eq!(delays, [100, 200, 350, 350, 350]);
        assert_eq!(b.delay(0).as_millis(), 100);
        assert_eq!(b.delay(u32::MAX), b.max);
    }
}
