//! The Redis event log of distributed mode: one Redis stream per prompt.
//!
//! Layout (every key of a prompt shares the hash tag `{<prompt_id>}`, DESIGN §6):
//!
//! * `parley:{<prompt_id>}:events` — a stream whose entry ids are `<seq>-0`: an entry
//!   holds one event (field `k`, the [`EventKind`] as JSON) or a batch of consecutive
//!   events appended together, up to and including `seq` ([`wire`]). The stream is its
//!   own sequence counter: there is no second key that could drift from it or outlive
//!   it.
//! * `parley:{<prompt_id>}:notify` — a pub/sub channel; every append publishes
//!   `<first seq>:<entry JSON>` on it right after storing the entry.
//!
//! Appending ([`writer`]): [`EventLog::append`] is one Lua script that reads the last id,
//! adds the next and publishes it, so any number of appenders get gap-free seqs; the
//! worker's [`EventWriter`] keeps the last seq and appends with one pipelined `XADD` +
//! `PUBLISH`, no read, falling back to the script when Redis refuses its id — a batch of
//! events ([`EventWriter::append_all`]) in one entry, so in one `XADD` and one `PUBLISH`.
//! Reading is `XRANGE <after+1> + COUNT n` (the first entry may start before `after+1`).
//!
//! Following a log never costs a connection or a blocking `XREAD` per reader: all the
//! readers of one `RedisEventLog` share its multiplexed command connection (a
//! [`ConnectionManager`](redis::aio::ConnectionManager)) and one pub/sub connection owned by the [`listener`] task,
//! which subscribes a prompt's channel while it has local readers. A reader subscribes
//! first and then reads what is stored, so nothing appended in between goes unannounced;
//! it wakes on a notification, and if none comes for [`POLL_EVERY`] it looks at the
//! stream itself, so a lost notification delays it but cannot stall it, and a log that
//! expired under it ends its stream.
//!
//! Cancel signals ([`cancels`]) are `PUBLISH`es on one channel for the deployment, which
//! each worker process listens to on a connection of its own.
//!
//! Connection failures map to [`EventLogError::Unavailable`].

mod cancels;
mod listener;
mod reader;
mod wire;
mod writer;

use std::sync::Arc;
use std::time::Duration;

use ::redis::{ErrorKind, RedisError, Script, ServerErrorKind};
use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use parley_protocol::events::{EventKind, StreamEvent};
use parley_protocol::keys;
use uuid::Uuid;

use self::cancels::Cancels;
use self::listener::Listener;
use self::reader::Reader;
use self::wire::Payload;
use self::writer::{Writer, append_script, new_tag};
use super::{CancelListener, EventLog, EventLogError, EventWriter, Result, SharedEvent};
use crate::topology::{Shared, Timeouts, Topology};

/// How long a reader waits for a notification before looking at the stream itself.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// The Redis [`EventLog`]. Cheap to clone; clones share both connections.
#[derive(Clone)]
pub struct RedisEventLog {
    inner: Arc<Inner>,
}

struct Inner {
    connection: Shared,
    /// `PUBLISH`, or `SPUBLISH` on a cluster (see [`crate::topology`]).
    publish: &'static str,
    listener: Arc<Listener>,
    cancels: Cancels,
    append: Script,
}

impl RedisEventLog {
    /// Connects to Redis at `url` and starts the shared pub/sub listener (on the current
    /// tokio runtime).
    pub async fn connect(url: &str) -> Result<Self> {
        let topology = Topology::from_url(url)
            .map_err(|error| EventLogError::Internal(format!("invalid Redis URL: {error}")))?;
        // Lazy: Parley starts (and reports not-ready) while Redis is down, and
        // connects as soon as it is back.
        let connection = topology
            .shared(Timeouts::SEAMS)
            .map_err(|error| redis_error("connecting to Redis", error))?;
        Ok(Self {
            inner: Arc::new(Inner {
                connection,
                publish: topology.publish_command(),
                listener: Listener::start(topology.clone()),
                cancels: Cancels::new(topology),
                append: append_script(),
            }),
        })
    }

    /// The notify channels the shared pub/sub connection is subscribed to: one per
    /// prompt with a local reader waiting for live events.
    pub fn active_channels(&self) -> Vec<String> {
        let mut channels: Vec<String> = self
            .inner
            .listener
            .listening()
            .into_iter()
            .map(keys::notify)
            .collect();
        channels.sort();
        channels
    }

    /// How many cancel listeners the prompt has in this process.
    pub fn cancel_listeners(&self, prompt_id: Uuid) -> usize {
        self.inner.cancels.listeners(prompt_id)
    }

    /// Drops the pub/sub connection as if Redis had closed it.
    #[cfg(test)]
    pub(crate) async fn drop_pubsub_connection(&self) {
        self.inner.listener.reconnect().await;
    }

    /// Drops the cancel signals' connection as if Redis had closed it.
    #[cfg(test)]
    pub(crate) async fn drop_cancel_connection(&self) {
        self.inner.cancels.reconnect().await;
    }
}

/// Maps a Redis error: reaching Redis failed → `Unavailable`, anything else → `Internal`.
pub(crate) fn redis_error(doing: &str, error: RedisError) -> EventLogError {
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
        EventLogError::Unavailable(format!("{doing}: {error}"))
    } else {
        EventLogError::Internal(format!("{doing}: {error}"))
    }
}

#[async_trait]
impl EventLog for RedisEventLog {
    async fn append_above(
        &self,
        prompt_id: Uuid,
        floor: u64,
        kind: EventKind,
    ) -> Result<StreamEvent> {
        let payload = Payload::of(std::slice::from_ref(&kind))?;
        let seq = (self.inner)
            .append_anywhere(prompt_id, floor, &payload, &new_tag())
            .await?;
        Ok(StreamEvent {
            seq,
            prompt_id,
            kind,
        })
    }

    fn writer(&self, prompt_id: Uuid, last_seq: Option<u64>, floor: u64) -> Box<dyn EventWriter> {
        // An empty log starts above the floor; one that holds events goes on from its end.
        let next = last_seq.map(|last| if last == 0 { floor + 1 } else { last + 1 });
        Box::new(Writer {
            inner: self.inner.clone(),
            prompt_id,
            next,
            fresh: last_seq == Some(0),
            floor,
        })
    }

    async fn read(&self, prompt_id: Uuid, after: u64, limit: usize) -> Result<Vec<StreamEvent>> {
        let (events, _) = self.inner.fetch(prompt_id, after, limit, false).await?;
        Ok(events)
    }

    async fn last(&self, prompt_id: Uuid) -> Result<Option<StreamEvent>> {
        self.inner.last(prompt_id).await
    }

    fn subscribe(&self, prompt_id: Uuid, after: u64) -> BoxStream<'static, Result<StreamEvent>> {
        self.subscribe_shared(prompt_id, after)
            .map(|event| event.map(SharedEvent::into_event))
            .boxed()
    }

    fn subscribe_shared(
        &self,
        prompt_id: Uuid,
        after: u64,
    ) -> BoxStream<'static, Result<Arc<SharedEvent>>> {
        Reader::new(self.inner.clone(), prompt_id, after).into_stream()
    }

    async fn expire(&self, prompt_id: Uuid, retention: Duration) -> Result<()> {
        let millis = u64::try_from(retention.as_millis()).unwrap_or(u64::MAX);
        ::redis::cmd("PEXPIRE")
            .arg(keys::events(prompt_id))
            .arg(millis)
            .exec_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("expiring the event log", error))
    }

    async fn exists(&self, prompt_id: Uuid) -> Result<bool> {
        ::redis::cmd("EXISTS")
            .arg(keys::events(prompt_id))
            .query_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("checking the event log", error))
    }

    async fn ready(&self) -> Result<()> {
        ::redis::cmd("PING")
            .exec_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("pinging Redis", error))
    }

    async fn signal_cancel(&self, prompt_id: Uuid) -> Result<()> {
        cancels::signal(prompt_id, self.inner.publish)
            .exec_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("signalling a cancel", error))
    }

    fn listen_cancel(&self, prompt_id: Uuid) -> CancelListener {
        self.inner.cancels.listen(prompt_id)
    }
}

#[cfg(test)]
mod tests;
