//! The Redis job queue (distributed mode): Parley's own, three commands per job.
//!
//! Keys, all under the queue name given (default [`DEFAULT_QUEUE`]) as a hash tag, so a
//! queue lives on one Redis Cluster slot:
//!
//! * `{<queue>}:pending` — a list of jobs (their JSON). [`JobQueue::enqueue`] is one
//!   `LPUSH`.
//! * `{<queue>}:running:<worker>` — the jobs one worker took. A worker takes a job with
//!   one blocking `BLMOVE` from the pending list into its own (so a job is never only in
//!   a worker's memory, and a waiting worker is woken by the push itself: no poll, no
//!   wake-up message), and acknowledges it with one `LREM` once its handler returned.
//! * `{<queue>}:workers` — a sorted set of worker names scored by their last heartbeat
//!   (Redis's clock, in ms).
//!
//! Orphans: every [`ConsumerConfig::heartbeat`], one script records the worker's
//! heartbeat and moves the jobs of every worker whose heartbeat is
//! `heartbeat × missed_heartbeats` old back to the front of the pending list (see
//! [`super`]). The worker loop is in [`pool`].
//!
//! This replaces `apalis-redis` (DESIGN §1 names apalis): apalis-redis 1.0 spends 27
//! commands on one job — a push that always lands in the *scheduled* set, a fetch script
//! of 11 commands, a lock script of 5, an ack script of 3 — plus a 5-command poll every
//! second while idle, more than the whole budget of a turn (`docs/decisions.md`).

mod pool;
mod scripts;

use std::fmt;
use std::time::Duration;

use async_trait::async_trait;
use parley_protocol::jobs::Generate;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, ErrorKind, RedisError, ServerErrorKind};
use tokio::sync::watch;

use super::consumer::JobContext;
use super::{ConsumerConfig, DEFAULT_QUEUE, JobQueue, QueueError};

/// The Redis [`JobQueue`]. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct RedisQueue {
    client: Client,
    conn: ConnectionManager,
    queue: String,
}

impl fmt::Debug for RedisQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisQueue")
            .field("queue", &self.queue)
            .finish_non_exhaustive()
    }
}

impl RedisQueue {
    /// A queue on the Redis at `url`. Does not contact the server (the connection is made
    /// on first use, so a process can start while Redis is down and report it through
    /// [`JobQueue::ready`]); must be called inside a Tokio runtime.
    pub fn connect(url: &str) -> Result<Self, QueueError> {
        let client = crate::redis_client(url)
            .map_err(|e| QueueError::Internal(format!("invalid Redis URL: {e}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(2));
        let conn = ConnectionManager::new_lazy_with_config(client.clone(), config)
            .map_err(|e| redis_error("connecting to Redis", e))?;
        Ok(Self {
            client,
            conn,
            queue: DEFAULT_QUEUE.into(),
        })
    }

    /// The same connection on another queue (namespace), e.g. one per test.
    pub fn with_queue(mut self, queue: impl Into<String>) -> Self {
        self.queue = queue.into();
        self
    }

    fn pending_key(&self) -> String {
        format!("{{{}}}:pending", self.queue)
    }

    fn epoch_key(&self) -> String {
        format!("{{{}}}:epoch", self.queue)
    }

    fn workers_key(&self) -> String {
        format!("{{{}}}:workers", self.queue)
    }

    /// The prefix of the workers' running lists (the worker's name follows).
    fn running_prefix(&self) -> String {
        format!("{{{}}}:running:", self.queue)
    }

    /// Runs one pool of consumers named `name` until `stop` turns true (see [`pool`]).
    pub(crate) async fn run_worker(
        &self,
        name: &str,
        config: &ConsumerConfig,
        job_context: &JobContext,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), QueueError> {
        pool::run(self, name, config, job_context, stop).await
    }
}

#[async_trait]
impl JobQueue for RedisQueue {
    async fn enqueue(&self, job: Generate) -> Result<(), QueueError> {
        let payload = serde_json::to_string(&job)
            .map_err(|e| QueueError::Internal(format!("encoding a job: {e}")))?;
        redis::cmd("LPUSH")
            .arg(self.pending_key())
            .arg(payload)
            .query_async::<i64>(&mut self.conn.clone())
            .await
            .map(drop)
            .map_err(|e| redis_error("enqueueing a job", e))
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        redis::cmd("LLEN")
            .arg(self.pending_key())
            .query_async(&mut self.conn.clone())
            .await
            .map_err(|e| redis_error("reading the queue depth", e))
    }

    async fn ready(&self) -> Result<(), QueueError> {
        redis::cmd("PING")
            .query_async::<String>(&mut self.conn.clone())
            .await
            .map(drop)
            .map_err(|e| redis_error("pinging Redis", e))
    }

    /// A marker key, written by the first to look: as long as Redis keeps its data the
    /// marker stays; one that lost it (restarted without persistence, flushed) gets a
    /// new one from the next look. One command (`SET … NX GET`, Redis 7).
    async fn epoch(&self) -> Result<Option<String>, QueueError> {
        let fresh = uuid::Uuid::now_v7().to_string();
        let kept: Option<String> = redis::cmd("SET")
            .arg(self.epoch_key())
            .arg(&fresh)
            .arg("NX")
            .arg("GET")
            .query_async(&mut self.conn.clone())
            .await
            .map_err(|e| redis_error("reading the queue's epoch", e))?;
        Ok(Some(kept.unwrap_or(fresh)))
    }
}

/// Maps a Redis error: reaching Redis failed → `Unavailable`, anything else → `Internal`.
fn redis_error(doing: &str, error: RedisError) -> QueueError {
    let unreachable = error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || matches!(
            error.kind(),
            ErrorKind::Server(
                ServerErrorKind::BusyLoading
                    | ServerErrorKind::MasterDown
                    | ServerErrorKind::ReadOnly
            )
        );
    if unreachable {
        QueueError::Unavailable(format!("{doing}: {error}"))
    } else {
        QueueError::Internal(format!("{doing}: {error}"))
    }
}

#[cfg(test)]
mod tests;
