//! The Redis job queue (distributed mode): Parley's own, three commands per job.
//!
//! A queue is split into **partitions** ([`RedisQueue::with_partitions`], one by
//! default), each under a hash tag of its own, so each lives on one Redis Cluster slot
//! and a cluster spreads them over its primaries. Partition 0's tag is the queue's name
//! (default [`DEFAULT_QUEUE`]), partition `i > 0`'s is `<queue>#<i>`, so a one-partition
//! queue keeps the keys of earlier releases. Per partition (`{<tag>}`):
//!
//! * `{<tag>}:pending` — a list of jobs (their JSON). [`JobQueue::enqueue`] is one
//!   `LPUSH` into the partition the prompt's id picks (its random bits, so partitions
//!   fill evenly and a job always goes back to its own).
//! * `{<tag>}:running:<worker>` — the jobs one worker took. A worker takes a job with
//!   one blocking `BLMOVE` from the pending list into its own (so a job is never only in
//!   a worker's memory, and a waiting worker is woken by the push itself: no poll, no
//!   wake-up message), and acknowledges it with one `LREM` once its handler returned.
//! * `{<tag>}:workers` — a sorted set of worker names scored by their last heartbeat
//!   (Redis's clock, in ms).
//!
//! A worker serves every partition: one pool per partition (a lane of the apalis backend,
//! `queue::worker`), each fetch blocked in its own `BLMOVE`, all sharing the
//! worker's job slots (see [`pool`] for how a worker with fewer free slots than
//! partitions keeps turning to each of them).
//!
//! Orphans: every [`ConsumerConfig::heartbeat`](super::ConsumerConfig::heartbeat), one script per partition records the
//! worker's heartbeat and moves the jobs of every worker whose heartbeat is
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
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::future::try_join_all;
use parley_protocol::jobs::PromptJob;
use redis::{ErrorKind, RedisError, ServerErrorKind};
use uuid::Uuid;

use super::{DEFAULT_QUEUE, JobQueue, QueueError};
use crate::topology::{Shared, Timeouts, Topology};

/// How long an enqueue keeps trying while Redis cannot take the job (a restart, a
/// cluster's primary failing over to its replica) before it fails and the turn is
/// given up. A push whose reply was lost and that is sent again queues the job twice,
/// which is harmless: a job for a prompt another run took or finished is a no-op.
pub const ENQUEUE_PATIENCE: Duration = Duration::from_secs(5);

/// The most partitions a queue may have.
pub const MAX_PARTITIONS: u16 = 1024;

/// The Redis [`JobQueue`]. Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct RedisQueue {
    topology: Arc<Topology>,
    conn: Shared,
    queue: String,
    partitions: u16,
}

impl fmt::Debug for RedisQueue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisQueue")
            .field("queue", &self.queue)
            .field("partitions", &self.partitions)
            .finish_non_exhaustive()
    }
}

/// The keys of one partition.
#[derive(Debug, Clone)]
pub(crate) struct Partition {
    tag: String,
}

impl Partition {
    fn pending_key(&self) -> String {
        format!("{{{}}}:pending", self.tag)
    }

    fn epoch_key(&self) -> String {
        format!("{{{}}}:epoch", self.tag)
    }

    fn workers_key(&self) -> String {
        format!("{{{}}}:workers", self.tag)
    }

    /// The prefix of the workers' running lists (the worker's name follows).
    fn running_prefix(&self) -> String {
        format!("{{{}}}:running:", self.tag)
    }
}

impl RedisQueue {
    /// A queue on the Redis at `url` (one server, or a cluster: see
    /// [`crate::topology`]). Does not contact the server (the connection is made on first
    /// use, so a process can start while Redis is down and report it through
    /// [`JobQueue::ready`]); must be called inside a Tokio runtime.
    pub fn connect(url: &str) -> Result<Self, QueueError> {
        let topology = Topology::from_url(url)
            .map_err(|e| QueueError::Internal(format!("invalid Redis URL: {e}")))?;
        let conn = topology
            .shared(Timeouts::SEAMS)
            .map_err(|e| redis_error("connecting to Redis", e))?;
        Ok(Self {
            topology: Arc::new(topology),
            conn,
            queue: DEFAULT_QUEUE.into(),
            partitions: 1,
        })
    }

    /// The same connection on another queue (namespace), e.g. one per test.
    pub fn with_queue(mut self, queue: impl Into<String>) -> Self {
        self.queue = queue.into();
        self
    }

    /// The same queue split into `partitions` (1 to [`MAX_PARTITIONS`]). Every api and
    /// worker process of a deployment must use the same number: a job pushed into a
    /// partition no worker serves waits until one does.
    pub fn with_partitions(mut self, partitions: u16) -> Self {
        self.partitions = partitions.clamp(1, MAX_PARTITIONS);
        self
    }

    /// How many partitions the queue has.
    pub fn partitions(&self) -> u16 {
        self.partitions
    }

    pub(crate) fn partition(&self, index: u16) -> Partition {
        let tag = match index {
            0 => self.queue.clone(),
            i => format!("{}#{i}", self.queue),
        };
        Partition { tag }
    }

    fn all(&self) -> impl Iterator<Item = Partition> + '_ {
        (0..self.partitions).map(|i| self.partition(i))
    }

    /// The partition of a prompt's job: its id's random bits, modulo the count.
    fn partition_of(&self, prompt_id: Uuid) -> Partition {
        let random = prompt_id.as_u64_pair().1;
        self.partition((random % u64::from(self.partitions)) as u16)
    }

    /// The pending list of each partition, in order (for KEDA and tests).
    pub fn pending_keys(&self) -> Vec<String> {
        self.all().map(|p| p.pending_key()).collect()
    }

    /// The pools of a worker named `name`: one per partition (see [`pool`]).
    pub(crate) fn pools(&self, name: &str) -> Vec<Arc<pool::Pool>> {
        self.all()
            .map(|partition| Arc::new(pool::Pool::new(self, partition, name)))
            .collect()
    }
}

#[async_trait]
impl JobQueue for RedisQueue {
    async fn enqueue(&self, job: PromptJob) -> Result<(), QueueError> {
        let payload = serde_json::to_string(&job)
            .map_err(|e| QueueError::Internal(format!("encoding a job: {e}")))?;
        let mut push = redis::cmd("LPUSH");
        push.arg(self.partition_of(job.prompt_id).pending_key())
            .arg(payload);
        let give_up = tokio::time::Instant::now() + ENQUEUE_PATIENCE;
        let mut pause = Duration::from_millis(50);
        loop {
            let error = match push.query_async::<i64>(&mut self.conn.clone()).await {
                Ok(_) => return Ok(()),
                Err(e) => redis_error("enqueueing a job", e),
            };
            if !matches!(error, QueueError::Unavailable(_))
                || tokio::time::Instant::now() + pause > give_up
            {
                return Err(error);
            }
            tracing::warn!(prompt_id = %job.prompt_id, %error, "enqueueing again");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
        }
    }

    /// The sum of the partitions' lengths: one `LLEN` each, sent together.
    async fn depth(&self) -> Result<u64, QueueError> {
        let lengths = try_join_all(self.all().map(|p| async move {
            redis::cmd("LLEN")
                .arg(p.pending_key())
                .query_async::<u64>(&mut self.conn.clone())
                .await
        }))
        .await
        .map_err(|e| redis_error("reading the queue depth", e))?;
        Ok(lengths.into_iter().sum())
    }

    async fn ready(&self) -> Result<(), QueueError> {
        redis::cmd("PING")
            .query_async::<String>(&mut self.conn.clone())
            .await
            .map(drop)
            .map_err(|e| redis_error("pinging Redis", e))
    }

    /// A marker key per partition, written by the first to look: as long as Redis keeps
    /// its data the marker stays; one that lost it (restarted without persistence,
    /// flushed; on a cluster, the node of that partition) gets a new one from the next
    /// look. One command per partition (`SET … NX GET`, Redis 7); the epoch is the
    /// markers joined, so it changes when any partition lost its jobs.
    async fn epoch(&self) -> Result<Option<String>, QueueError> {
        let markers = try_join_all(self.all().map(|p| async move {
            let fresh = Uuid::now_v7().to_string();
            let kept: Option<String> = redis::cmd("SET")
                .arg(p.epoch_key())
                .arg(&fresh)
                .arg("NX")
                .arg("GET")
                .query_async(&mut self.conn.clone())
                .await?;
            Ok::<_, RedisError>(kept.unwrap_or(fresh))
        }))
        .await
        .map_err(|e| redis_error("reading the queue's epoch", e))?;
        Ok(Some(markers.join(",")))
    }
}

/// Maps a Redis error: reaching Redis failed → `Unavailable`, anything else → `Internal`.
fn redis_error(doing: &str, error: RedisError) -> QueueError {
    let unreachable = error.is_io_error()
        || error.is_connection_dropped()
        || error.is_connection_refusal()
        || error.is_timeout()
        || error.is_cluster_error()
        || matches!(
            error.kind(),
            ErrorKind::ClusterConnectionNotFound
                | ErrorKind::Server(
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
