//! The Redis event log of distributed mode: one Redis stream per prompt.
//!
//! Layout (every key of a prompt shares the hash tag `{<prompt_id>}`, DESIGN §6):
//!
//! * `parley:{<prompt_id>}:events` — a stream whose entry ids are `<seq>-0`, each with
//!   one field `k` holding the [`EventKind`] as JSON. The stream is its own sequence
//!   counter: the append script reads the last id and adds one, so there is no second
//!   key that could drift from it or outlive it.
//! * `parley:{<prompt_id>}:notify` — a pub/sub channel; every append publishes
//!   `<seq>:<kind JSON>` on it from inside the same script, so notification order is
//!   stream order.
//!
//! Appending is one Lua script (`XREVRANGE` last id → `XADD <seq>-0` → `PUBLISH`): Redis
//! runs scripts one at a time, so concurrent appenders from any number of workers get
//! gap-free seqs. Reading is `XRANGE <after+1> + COUNT n`.
//!
//! Following a log never costs a connection or a blocking `XREAD` per reader: all the
//! readers of one `RedisEventLog` share its multiplexed command connection (a
//! [`ConnectionManager`]) and one pub/sub connection owned by the [`listener`] task,
//! which subscribes a prompt's channel while it has local readers. A reader wakes on a
//! notification; if none comes for [`POLL_EVERY`] it looks at the stream itself, so a
//! lost notification delays it but cannot stall it, and a log that expired under it ends
//! its stream.
//!
//! Connection failures map to [`EventLogError::Unavailable`].

mod listener;

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use ::redis::aio::{ConnectionManager, ConnectionManagerConfig};
use ::redis::{ErrorKind, RedisError, Script, ServerErrorKind};
use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::{self, BoxStream};
use parley_protocol::events::{EventKind, StreamEvent};
use parley_protocol::keys;
use tokio::sync::broadcast::error::RecvError;
use uuid::Uuid;

use self::listener::{Listener, Membership, Wake};
use super::{EventLog, EventLogError, READ_BATCH, Result, refuse_ping};

/// How long a reader waits for a notification before looking at the stream itself.
pub const POLL_EVERY: Duration = Duration::from_secs(2);
/// How long a reader that has caught up waits for its channel subscription before it
/// reads the stream once more and starts waiting for notifications.
const READY_WAIT: Duration = Duration::from_secs(1);

/// KEYS[1] the stream, ARGV[1] the kind as JSON, ARGV[2] the notify channel.
const APPEND_SCRIPT: &str = r"
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local seq = 1
if #last > 0 then
  seq = tonumber(string.match(last[1][1], '^(%d+)')) + 1
end
redis.call('XADD', KEYS[1], string.format('%d-0', seq), 'k', ARGV[1])
redis.call('PUBLISH', ARGV[2], string.format('%d:', seq) .. ARGV[1])
return seq
";

/// The Redis [`EventLog`]. Cheap to clone; clones share both connections.
#[derive(Clone)]
pub struct RedisEventLog {
    inner: Arc<Inner>,
}

struct Inner {
    connection: ConnectionManager,
    listener: Arc<Listener>,
    append: Script,
}

impl RedisEventLog {
    /// Connects to Redis at `url` and starts the shared pub/sub listener (on the current
    /// tokio runtime).
    pub async fn connect(url: &str) -> Result<Self> {
        let client = crate::redis_client(url)
            .map_err(|error| EventLogError::Internal(format!("invalid Redis URL: {error}")))?;
        let config = ConnectionManagerConfig::new()
            .set_connection_timeout(Some(Duration::from_secs(2)))
            .set_response_timeout(Some(Duration::from_secs(5)))
            .set_number_of_retries(2)
            .set_max_delay(Duration::from_secs(2));
        // Lazy: Parley starts (and reports not-ready) while Redis is down, and
        // connects as soon as it is back.
        let connection =
            ::redis::aio::ConnectionManager::new_lazy_with_config(client.clone(), config)
                .map_err(|error| redis_error("connecting to Redis", error))?;
        Ok(Self {
            inner: Arc::new(Inner {
                connection,
                listener: Listener::start(client),
                append: Script::new(APPEND_SCRIPT),
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

    /// Drops the pub/sub connection as if Redis had closed it.
    #[cfg(test)]
    pub(crate) async fn drop_pubsub_connection(&self) {
        self.inner.listener.reconnect().await;
    }
}

impl Inner {
    /// Up to `limit` stored events after `after`; with `with_tail`, also the log's last
    /// event, in the same round trip.
    async fn fetch(
        &self,
        prompt_id: Uuid,
        after: u64,
        limit: usize,
        with_tail: bool,
    ) -> Result<(Vec<StreamEvent>, Tail)> {
        let key = keys::events(prompt_id);
        let first = after.checked_add(1).filter(|_| limit > 0);
        let mut pipe = ::redis::pipe();
        if let Some(first) = first {
            pipe.cmd("XRANGE")
                .arg(&key)
                .arg(format!("{first}-0"))
                .arg("+")
                .arg("COUNT")
                .arg(limit);
        }
        if with_tail {
            pipe.cmd("XREVRANGE")
                .arg(&key)
                .arg("+")
                .arg("-")
                .arg("COUNT")
                .arg(1);
        }
        let replies: Vec<Vec<Entry>> = if first.is_some() || with_tail {
            pipe.query_async(&mut self.connection.clone())
                .await
                .map_err(|error| redis_error("reading the event log", error))?
        } else {
            Vec::new()
        };
        let mut replies = replies.into_iter();
        let decode_all = |entries: Vec<Entry>| {
            entries
                .into_iter()
                .map(|entry| decode(prompt_id, entry))
                .collect::<Result<Vec<_>>>()
        };
        let events = match first {
            Some(_) => decode_all(replies.next().unwrap_or_default())?,
            None => Vec::new(),
        };
        let tail = if with_tail {
            match decode_all(replies.next().unwrap_or_default())?.pop() {
                Some(last) => Tail::Last {
                    seq: last.seq,
                    terminal: last.kind.is_terminal(),
                },
                None => Tail::Missing,
            }
        } else {
            Tail::NotChecked
        };
        Ok((events, tail))
    }
}

/// What a fetch learned about the end of the log.
enum Tail {
    NotChecked,
    /// The log does not exist (not yet, or no longer).
    Missing,
    /// The log's last event.
    Last {
        seq: u64,
        terminal: bool,
    },
}

/// One `XRANGE` entry: its id and its fields.
type Entry = (String, HashMap<String, String>);

fn decode(prompt_id: Uuid, (id, fields): Entry) -> Result<StreamEvent> {
    let corrupt = |what: &str| EventLogError::Internal(format!("event log entry {id}: {what}"));
    let seq = id
        .split_once('-')
        .and_then(|(seq, _)| seq.parse().ok())
        .ok_or_else(|| corrupt("the id is not <seq>-0"))?;
    let kind = fields.get("k").ok_or_else(|| corrupt("no `k` field"))?;
    let kind = serde_json::from_str(kind).map_err(|error| corrupt(&error.to_string()))?;
    Ok(StreamEvent {
        seq,
        prompt_id,
        kind,
    })
}

/// Maps a Redis error: reaching Redis failed → `Unavailable`, anything else → `Internal`.
fn redis_error(doing: &str, error: RedisError) -> EventLogError {
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
    async fn append(&self, prompt_id: Uuid, kind: EventKind) -> Result<StreamEvent> {
        refuse_ping(&kind)?;
        let json = serde_json::to_string(&kind)
            .map_err(|error| EventLogError::Internal(format!("serializing an event: {error}")))?;
        let seq: u64 = self
            .inner
            .append
            .key(keys::events(prompt_id))
            .arg(json)
            .arg(keys::notify(prompt_id))
            .invoke_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("appending to the event log", error))?;
        Ok(StreamEvent {
            seq,
            prompt_id,
            kind,
        })
    }

    async fn read(&self, prompt_id: Uuid, after: u64, limit: usize) -> Result<Vec<StreamEvent>> {
        let (events, _) = self.inner.fetch(prompt_id, after, limit, false).await?;
        Ok(events)
    }

    fn subscribe(&self, prompt_id: Uuid, after: u64) -> BoxStream<'static, Result<StreamEvent>> {
        let reader = Reader {
            inner: self.inner.clone(),
            prompt_id,
            next: after.saturating_add(1),
            buffer: VecDeque::new(),
            started: false,
            more: false,
            seen_log: false,
            membership: None,
            done: false,
        };
        stream::unfold(reader, |mut reader| async move {
            let item = reader.next_item().await?;
            Some((item, reader))
        })
        .boxed()
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
}

/// One subscription: a cursor, what it fetched but has not yielded yet, and — once it
/// has caught up with the stored events — a membership in its prompt's topic.
struct Reader {
    inner: Arc<Inner>,
    prompt_id: Uuid,
    next: u64,
    buffer: VecDeque<StreamEvent>,
    started: bool,
    /// The last fetch filled a whole batch: fetch again before waiting.
    more: bool,
    /// The log had events while we followed it; if it disappears now, it has expired.
    seen_log: bool,
    membership: Option<Membership>,
    done: bool,
}

impl Reader {
    async fn next_item(&mut self) -> Option<Result<StreamEvent>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(event) = self.buffer.pop_front() {
                self.next = event.seq + 1;
                // A terminal event ends the stream unless the log goes on after it (the
                // prompt was resumed: a new attempt follows); one look tells.
                if event.kind.is_terminal() && self.buffer.is_empty() {
                    let goes_on = self.fetch(false).await.is_ok() && !self.buffer.is_empty();
                    if !goes_on {
                        self.finish();
                    }
                }
                return Some(Ok(event));
            }
            let step = if !self.started || self.more {
                // The first look (a finished log is read without ever subscribing) and
                // the rest of a long backlog.
                let check_end = !self.started;
                self.started = true;
                self.fetch(check_end).await
            } else if self.membership.is_none() {
                self.join().await;
                self.fetch(false).await
            } else {
                self.wait().await
            };
            if let Err(error) = step {
                self.finish();
                return Some(Err(error));
            }
        }
    }

    /// Ends the stream and releases the topic membership at once.
    fn finish(&mut self) {
        self.done = true;
        self.membership = None;
    }

    /// Fetches the next batch; with `check_end`, also looks at the log's last event to
    /// notice a log that is over (its last event is terminal and already behind us) or
    /// gone (it expired under us).
    async fn fetch(&mut self, check_end: bool) -> Result<()> {
        let (events, tail) = self
            .inner
            .fetch(self.prompt_id, self.next - 1, READ_BATCH, check_end)
            .await?;
        self.more = events.len() == READ_BATCH;
        self.seen_log |= !events.is_empty();
        if events.is_empty() {
            match tail {
                Tail::Last { seq, terminal } if terminal && seq < self.next => self.finish(),
                Tail::Last { .. } => self.seen_log = true,
                Tail::Missing if self.seen_log => self.finish(),
                Tail::Missing | Tail::NotChecked => {}
            }
        }
        self.buffer.extend(events);
        Ok(())
    }

    async fn join(&mut self) {
        let mut membership = self.inner.listener.join(self.prompt_id);
        // Until the channel is subscribed an append is announced to nobody, so wait for it
        // before the catch-up fetch. Bounded: without pub/sub the poll still finds events.
        let _ = tokio::time::timeout(READY_WAIT, membership.ready.wait_for(|ready| *ready)).await;
        self.membership = Some(membership);
    }

    async fn wait(&mut self) -> Result<()> {
        let Some(membership) = self.membership.as_mut() else {
            return Ok(());
        };
        match tokio::time::timeout(POLL_EVERY, membership.wakes.recv()).await {
            Ok(Ok(Wake::Event(event))) if event.seq < self.next => Ok(()),
            Ok(Ok(Wake::Event(event))) if event.seq == self.next => {
                self.seen_log = true;
                self.buffer.push_back(StreamEvent::clone(&event));
                Ok(())
            }
            // A gap, a resync, or a notification buffer we fell behind.
            Ok(Ok(_) | Err(RecvError::Lagged(_))) => self.fetch(false).await,
            // Cannot happen while we are a member; join again rather than spin.
            Ok(Err(RecvError::Closed)) => {
                self.membership = None;
                Ok(())
            }
            // No word for a while: look for ourselves (and notice a finished or expired log).
            Err(_elapsed) => self.fetch(true).await,
        }
    }
}

#[cfg(test)]
mod tests;
