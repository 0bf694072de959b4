//! One partition's pool of consumers on the Redis queue: how the apalis worker's backend
//! ([`crate::queue::worker`]) takes jobs from the partition, settles them, and keeps the
//! worker's heartbeat there.
//!
//! A fetch blocks in `BLMOVE` on a connection of its own (a blocking command would stall
//! every other command of a multiplexed one). A `BLMOVE` is never abandoned half-way: a
//! job it moved would sit in this worker's running list with nobody running it and, the
//! worker being alive, nobody reaping it. So a shutdown makes Redis end the wait (`CLIENT
//! UNBLOCK` of that connection's id) and still reads the reply; a job that came with it
//! goes back to the queue. When the fetch connection fails instead, the reply may be
//! lost: before fetching again the pool *reconciles* its running list — whatever is in
//! it that no job of this pool holds goes back to the queue. An acknowledgement that
//! failed does the same.
//!
//! A queue of several partitions has one such pool per partition, all sharing the
//! worker's job slots. While the worker has a slot free for every partition, each fetch
//! waits a whole heartbeat; with fewer free slots than partitions, a fetch waits [`TURN`]
//! at most before the next partition gets its turn, so a job in any partition is seen
//! within `partitions × TURN` even by a busy worker, and at once by any worker with room.
//!
//! A job is acknowledged (`LREM`) once its run is over, or handed back (`LREM` +
//! `RPUSH`) if a shutdown interrupted it.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use redis::Script;
use tokio::sync::watch;
use tracing::warn;

use super::scripts::{HEARTBEAT, LEAVE, RECONCILE};
use super::{Partition, RedisQueue, redis_error};
use crate::queue::consumer::{ConsumerPool, Next, sleep_unless_stopped, stopped};
use crate::queue::{ConsumerConfig, QueueError};
use crate::topology::Shared;

/// How often a shutdown repeats `CLIENT UNBLOCK` until the fetch returns (the unblock
/// may reach Redis before the `BLMOVE` it is meant for).
const UNBLOCK_EVERY: Duration = Duration::from_millis(50);

/// How long the loop holding a worker's last free slot waits on its partition before
/// letting the next partition's loop have the slot.
const TURN: Duration = Duration::from_millis(250);

/// One partition's pool: what its fetches, job tasks and heartbeat share.
pub(crate) struct Pool {
    queue: RedisQueue,
    partition: Partition,
    name: String,
    running: String,
    /// The jobs taken and not yet acknowledged or handed back.
    held: Mutex<Vec<String>>,
    /// The running list may hold what no job holds: reconcile before the next fetch.
    stray: AtomicBool,
}

impl Pool {
    pub(super) fn new(queue: &RedisQueue, partition: Partition, name: &str) -> Self {
        Self {
            queue: queue.clone(),
            running: format!("{}{name}", partition.running_prefix()),
            partition,
            name: name.to_owned(),
            held: Mutex::default(),
            stray: AtomicBool::new(false),
        }
    }

    fn hold(&self, job: &str) {
        self.lock().push(job.to_owned());
    }

    fn release(&self, job: &str) {
        let mut held = self.lock();
        if let Some(at) = held.iter().position(|h| h == job) {
            held.swap_remove(at);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<String>> {
        self.held
            .lock()
            .unwrap_or_else(|poison| poison.into_inner())
    }

    /// Acknowledges a finished job, or hands back an interrupted one.
    async fn settle(&self, job: &str, done: bool) {
        let settled = if done {
            redis::cmd("LREM")
                .arg(&self.running)
                .arg(1)
                .arg(job)
                .query_async::<i64>(&mut self.queue.conn.clone())
                .await
                .map(drop)
        } else {
            redis::pipe()
                .atomic()
                .cmd("LREM")
                .arg(&self.running)
                .arg(1)
                .arg(job)
                .cmd("RPUSH")
                .arg(self.partition.pending_key())
                .arg(job)
                .query_async::<()>(&mut self.queue.conn.clone())
                .await
        };
        self.release(job);
        if let Err(e) = settled {
            // Still in the running list: the next reconcile hands it back (a finished
            // job runs again as a no-op: jobs are idempotent).
            warn!(worker = %self.name, error = %e, "could not settle a job; it will be handed back");
            self.stray.store(true, Ordering::SeqCst);
        }
    }
}

/// The connection the pool blocks on, and its id for `CLIENT UNBLOCK`.
pub(crate) struct Fetcher {
    conn: Shared,
    /// The connection's id on the server (on a cluster, the primary of the partition).
    id: i64,
}

impl Fetcher {
    async fn connect(queue: &RedisQueue, partition: &Partition) -> Result<Self, QueueError> {
        let mut conn = queue
            .topology
            .dedicated(None)
            .await
            .map_err(|e| redis_error("connecting to fetch jobs", e))?;
        let id = conn
            .query_beside(&partition.pending_key(), redis::cmd("CLIENT").arg("ID"))
            .await
            .map_err(|e| redis_error("connecting to fetch jobs", e))?;
        Ok(Self { conn, id })
    }
}

impl ConsumerPool for Pool {
    /// The job's JSON, which is also how `LREM` finds it in the running list.
    type Taken = String;
    type Fetcher = Fetcher;

    fn worker(&self) -> &str {
        &self.name
    }

    async fn connect(&self) -> Result<Fetcher, QueueError> {
        Fetcher::connect(&self.queue, &self.partition).await
    }

    async fn heartbeat(&self, config: &ConsumerConfig) -> Result<(), QueueError> {
        let dead_after =
            config.heartbeat.max(Duration::from_secs(1)) * config.missed_heartbeats.max(1);
        let reaped: u64 = Script::new(HEARTBEAT)
            .key(self.partition.workers_key())
            .key(self.partition.pending_key())
            .arg(&self.name)
            .arg(dead_after.as_millis() as u64)
            .arg(self.partition.running_prefix())
            .invoke_async(&mut self.queue.conn.clone())
            .await
            .map_err(|e| redis_error("recording a heartbeat", e))?;
        if reaped > 0 {
            warn!(worker = %self.name, dead = reaped, "handed back the jobs of dead job workers");
        }
        Ok(())
    }

    async fn leave(&self) {
        let left = Script::new(LEAVE)
            .key(self.partition.workers_key())
            .key(&self.running)
            .arg(&self.name)
            .invoke_async::<()>(&mut self.queue.conn.clone())
            .await;
        if let Err(e) = left {
            warn!(worker = %self.name, error = %e, "could not deregister the job worker");
        }
    }

    fn mark_stray(&self) {
        self.stray.store(true, Ordering::SeqCst);
    }

    fn stray(&self) -> bool {
        self.stray.load(Ordering::SeqCst)
    }

    /// Hands back what the backend shows as this worker's that no job task holds.
    async fn reconcile(&self) -> Result<(), QueueError> {
        let held = self.lock().clone();
        let back: u64 = Script::new(RECONCILE)
            .key(&self.running)
            .key(self.partition.pending_key())
            .arg(held)
            .invoke_async(&mut self.queue.conn.clone())
            .await
            .map_err(|e| redis_error("reconciling taken jobs", e))?;
        if back > 0 {
            warn!(worker = %self.name, jobs = back, "handed back jobs no consumer held");
        }
        self.stray.store(false, Ordering::SeqCst);
        Ok(())
    }

    async fn next(
        &self,
        fetcher: &mut Fetcher,
        config: &ConsumerConfig,
        stop: &watch::Receiver<bool>,
        // One `BLMOVE` takes one job.
        room: usize,
    ) -> Next<String> {
        let mut block = config.heartbeat.max(Duration::from_secs(1));
        if room <= 1 && self.queue.partitions() > 1 {
            // The worker's last free slot: other partitions' loops may be waiting for it.
            block = block.min(TURN);
        }
        match fetch(self, fetcher, block, stop).await {
            Ok(Some(job)) => Next::Job {
                payload: job.clone(),
                taken: job,
            },
            Ok(None) => Next::Again,
            Err(e) => {
                warn!(worker = %self.name, error = %e, "fetching a job failed; reconnecting");
                self.stray.store(true, Ordering::SeqCst);
                match reconnect(self, config, stop).await {
                    Some(reconnected) => {
                        *fetcher = reconnected;
                        Next::Again
                    }
                    None => Next::Stopped,
                }
            }
        }
    }

    async fn settle(&self, job: &String, done: bool) {
        Pool::settle(self, job, done).await;
    }
}

/// Takes the next job, waiting up to `block`; a shutdown ends the wait early.
async fn fetch(
    pool: &Pool,
    fetcher: &mut Fetcher,
    block: Duration,
    stop: &watch::Receiver<bool>,
) -> Result<Option<String>, QueueError> {
    let mut cmd = redis::cmd("BLMOVE");
    cmd.arg(pool.partition.pending_key())
        .arg(&pool.running)
        .arg("RIGHT")
        .arg("LEFT")
        .arg(block.as_secs_f64());
    let mut conn = fetcher.conn.clone();
    // A connection that died without a word would keep the reply from ever coming.
    let reply = tokio::time::timeout(block + Duration::from_secs(5), async move {
        cmd.query_async::<Option<String>>(&mut conn).await
    });
    tokio::pin!(reply);
    let reply = tokio::select! {
        reply = &mut reply => reply,
        () = stopped(stop) => loop {
            let mut unblock = redis::cmd("CLIENT");
            unblock.arg("UNBLOCK").arg(fetcher.id);
            let _ = pool
                .queue
                .conn
                .clone()
                .query_beside::<i64>(&pool.partition.pending_key(), &unblock)
                .await;
            if let Ok(reply) = tokio::time::timeout(UNBLOCK_EVERY, &mut reply).await {
                break reply;
            }
        },
    };
    let job = reply
        .map_err(|_| QueueError::Unavailable("fetching a job timed out".into()))?
        .map_err(|e| redis_error("fetching a job", e))?;
    if let Some(job) = &job {
        pool.hold(job);
    }
    Ok(job)
}

/// A new fetch connection, retried every `restart_delay`; `None` once stopped.
async fn reconnect(
    pool: &Pool,
    config: &ConsumerConfig,
    stop: &watch::Receiver<bool>,
) -> Option<Fetcher> {
    loop {
        if sleep_unless_stopped(config.restart_delay, stop).await {
            return None;
        }
        match Fetcher::connect(&pool.queue, &pool.partition).await {
            Ok(fetcher) => return Some(fetcher),
            Err(e) => warn!(worker = %pool.name, error = %e, "reconnecting to fetch jobs failed"),
        }
    }
}
