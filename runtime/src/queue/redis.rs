//! The Redis job queue (distributed mode): an `apalis-redis` storage under the queue
//! name given (default [`DEFAULT_QUEUE`]); every key is `<queue>:…`.
//!
//! apalis-redis 1.0 stores each pushed job as *scheduled* (even with no delay), promotes
//! it on the next fetch and announces nothing, and its workers otherwise only fetch on
//! their 30 s heartbeat. So [`RedisQueue::enqueue`] publishes on `<queue>:wakeup` after
//! each push, and each worker subscribes to that channel on a RESP3 connection that
//! resubscribes after a reconnect; [`ConsumerConfig::poll_interval`] covers anything a
//! lost message or a re-enqueued orphan leaves behind. Job timestamps are whole seconds
//! of the clock of the process that wrote them.
//!
//! Orphans: a worker's fetched jobs sit in its own in-flight set; when its heartbeat is
//! `heartbeat × missed_heartbeats` old, any other worker's heartbeat moves them back onto
//! the active list (see [`super`]). apalis-redis is not Redis-Cluster safe (its scripts
//! touch keys of several slots).

use std::fmt;
use std::time::Duration;

use apalis::prelude::{BackendExt, TaskSink, TaskSinkError, WorkerBuilder, WorkerBuilderExt};
use apalis_core::backend::Vacuum;
use apalis_core::worker::context::WorkerContext;
use apalis_redis::{Config, RedisStorage};
use async_trait::async_trait;
use parley_protocol::jobs::Generate;
use redis::aio::{ConnectionManager, ConnectionManagerConfig};
use redis::{Client, ErrorKind, ProtocolVersion, PushInfo, RedisError, ServerErrorKind};
use tokio::sync::watch;

use super::consumer::{JobContext, WakeOrTick, drive, process};
use super::{ConsumerConfig, DEFAULT_QUEUE, JobQueue, QueueError};

/// Finished jobs are kept this long before [`RedisQueue::purge_finished`] drops them.
const KEEP_FINISHED: Duration = Duration::from_secs(3600);

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

    fn config(&self) -> Config {
        Config::default()
            .queue(&self.queue)
            .batch_size(1) // a worker holds only what it runs: fair spread over workers
            .emit_events(false) // per-job pub/sub nobody listens to
    }

    fn storage(&self, config: Config) -> RedisStorage<Generate> {
        RedisStorage::new(self.conn.clone()).with_config(config)
    }

    fn wakeup_channel(&self) -> String {
        format!("{}:wakeup", self.queue)
    }

    /// Subscribes to the wake-up channel on a connection of its own. The returned
    /// connection must stay alive as long as wake-ups are wanted.
    async fn subscribe_wakeups(
        &self,
    ) -> Result<(ConnectionManager, watch::Receiver<u64>), QueueError> {
        let info = self.client.get_connection_info().clone();
        let redis = info
            .redis_settings()
            .clone()
            .set_protocol(ProtocolVersion::RESP3);
        let client = Client::open(info.set_redis_settings(redis))
            .map_err(|e| QueueError::Internal(format!("invalid Redis URL: {e}")))?;
        let (tx, rx) = watch::channel(0u64);
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_push_sender(move |_: PushInfo| {
                tx.send_modify(|n| *n = n.wrapping_add(1));
                Ok::<(), ()>(())
            })
            .set_automatic_resubscription();
        let mut conn = ConnectionManager::new_with_config(client, config)
            .await
            .map_err(|e| redis_error("subscribing to job wake-ups", e))?;
        conn.subscribe(self.wakeup_channel())
            .await
            .map_err(|e| redis_error("subscribing to job wake-ups", e))?;
        Ok((conn, rx))
    }

    /// Runs one apalis worker named `name` until it fails or `stop` turns true.
    pub(crate) async fn run_worker(
        &self,
        name: &str,
        config: &ConsumerConfig,
        job_context: &JobContext,
        stop: &watch::Receiver<bool>,
    ) -> Result<(), QueueError> {
        let (subscriber, wakeups) = self.subscribe_wakeups().await?;
        let strategy = WakeOrTick::new(wakeups, config.poll_interval, Some(Box::new(subscriber)));
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

    /// Drops finished jobs (payload, status, result) older than an hour, and the sets of
    /// finished job ids apalis keeps for its dashboard (they would grow forever).
    pub(crate) async fn purge_finished(&self) -> Result<u64, QueueError> {
        let config = self.config();
        let purged = self
            .storage(config.clone())
            .vacuum_before(KEEP_FINISHED)
            .await
            .map_err(|e| apalis_error("purging finished jobs", e))?;
        let mut conn = self.conn.clone();
        redis::cmd("DEL")
            .arg(config.done_jobs_set())
            .arg(config.dead_jobs_set())
            .query_async::<i64>(&mut conn)
            .await
            .map_err(|e| redis_error("purging finished job ids", e))?;
        Ok(purged as u64)
    }
}

#[async_trait]
impl JobQueue for RedisQueue {
    async fn enqueue(&self, job: Generate) -> Result<(), QueueError> {
        let mut storage = self.storage(self.config());
        storage.push(job).await.map_err(|e| match e {
            TaskSinkError::PushError(e) => apalis_error("enqueueing a job", e),
            other => QueueError::Internal(format!("enqueueing a job: {other}")),
        })?;
        // The job is stored; a lost wake-up only delays it to the next poll.
        let mut conn = self.conn.clone();
        if let Err(e) = redis::cmd("PUBLISH")
            .arg(self.wakeup_channel())
            .arg(1)
            .query_async::<i64>(&mut conn)
            .await
        {
            tracing::debug!(error = %e, "could not announce an enqueued job");
        }
        Ok(())
    }

    async fn depth(&self) -> Result<u64, QueueError> {
        let config = self.config();
        let mut conn = self.conn.clone();
        let (active, scheduled): (u64, u64) = redis::pipe()
            .cmd("LLEN")
            .arg(config.active_jobs_list())
            .cmd("ZCARD")
            .arg(config.scheduled_jobs_set())
            .query_async(&mut conn)
            .await
            .map_err(|e| redis_error("reading the queue depth", e))?;
        Ok(active + scheduled)
    }

    async fn ready(&self) -> Result<(), QueueError> {
        let mut conn = self.conn.clone();
        redis::cmd("PING")
            .query_async::<String>(&mut conn)
            .await
            .map(drop)
            .map_err(|e| redis_error("pinging Redis", e))
    }
}

fn apalis_error(doing: &str, error: apalis_redis::Error) -> QueueError {
    match error {
        apalis_redis::Error::Database(e) => redis_error(doing, e),
        other => QueueError::Internal(format!("{doing}: {other}")),
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
mod tests {
    use super::super::conformance::{self, Harness};
    use super::*;

    /// The Redis of `scripts/test.sh`; a missing one fails the test instead of skipping.
    fn redis_url() -> String {
        std::env::var("PARLEY_TEST_REDIS_URL").unwrap_or_else(|_| {
            panic!("PARLEY_TEST_REDIS_URL is not set: run the tests through scripts/test.sh")
        })
    }

    async fn harness() -> Harness {
        let url = redis_url();
        let queue = format!("parley-test-{}", uuid::Uuid::now_v7().simple());
        Harness::new(move || {
            let (url, queue) = (url.clone(), queue.clone());
            async move {
                let q = RedisQueue::connect(&url)
                    .expect("connect")
                    .with_queue(queue);
                super::super::QueueBackend::Redis(q)
            }
        })
    }

    conformance::conformance_suite!(harness);

    #[tokio::test]
    async fn ready_fails_on_a_dead_backend() {
        let queue = RedisQueue::connect("redis://127.0.0.1:1/").expect("a valid URL");
        match queue.ready().await {
            Err(QueueError::Unavailable(_)) => {}
            other => panic!("expected Unavailable, got {other:?}"),
        }
        assert!(matches!(
            queue.depth().await,
            Err(QueueError::Unavailable(_))
        ));
        let job = Generate::new(uuid::Uuid::now_v7());
        assert!(matches!(
            queue.enqueue(job).await,
            Err(QueueError::Unavailable(_))
        ));
    }
}
