//! The Redis user feed of distributed mode: one Redis stream per user.
//!
//! Layout: `parley:{user:<user_id>}:feed` (hash tag `{user:<user_id>}`; no command or
//! script touches two users' keys), entry ids `<seq>-0`, one field `k` holding the
//! [`UserEventKind`] as JSON. A stream starts with a marker entry (field `start`) one
//! below its first event, and expires [`Retention::max_age`] after it was created.
//!
//! Appending is one command: `XADD <key> NOMKSTREAM MAXLEN ~ <max_events> <seq>-0 k
//! <json>`, where `seq` is the appender's clock in microseconds (above the last seq this
//! process appended). No read, no `PUBLISH`, no expiry on the way: a plain turn's two
//! events cost two commands. When Redis refuses it — the stream does not exist yet
//! (`NOMKSTREAM`), or another process appended a higher id (clocks differ) — the
//! [`APPEND_SCRIPT`] appends instead: it creates the stream (marker, expiry) or numbers
//! the event one above the stream's last.
//!
//! Reading is the [`READ_SCRIPT`]: `XRANGE` after the reader's seq, and whether events
//! were lost there: the stream is gone, or its first entry is above the reader — the
//! marker (the stream was created again since the reader's seq), or an event (trimming
//! dropped the marker and the entries after it). The trimming case is conservative: a
//! reader holding exactly the last trimmed event is told of a gap too, and refetches
//! the session list once more than it had to.
//!
//! Following never costs a connection per reader: the [`tailer`] task of each
//! `RedisUserFeed` blocks in one `XREAD` over the streams of every user with a local
//! subscriber, on a connection of its own, and wakes their subscribers, who read what is
//! new through the shared multiplexed connection. If no wake comes for [`POLL_EVERY`] a
//! subscriber reads anyway, so a lost wake delays it but cannot stall it.
//!
//! On a Redis Cluster one `XREAD` cannot span the slots of several users. There every
//! append also announces itself, `SPUBLISH` on the user's [`keys::user_feed_wake`]
//! channel pipelined with the `XADD` (same slot, one round trip), and the tailer
//! subscribes to the channels of the users it follows instead of reading their streams.

mod tailer;

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ::redis::Script;
use async_trait::async_trait;
use futures::stream::{self, BoxStream, StreamExt};
use parley_protocol::feed::{UserEvent, UserEventKind};
use parley_protocol::keys;
use uuid::Uuid;

use self::tailer::Tailer;
use super::{FeedError, READ_BATCH, Read, Result, Retention, UserFeed, clock_micros};
use crate::event_log::redis::redis_error;
use crate::topology::{Shared, Timeouts, Topology};

/// How long a subscriber waits for a wake before reading the stream itself.
pub const POLL_EVERY: Duration = Duration::from_secs(5);

/// `KEYS[1]` the stream; `ARGV[1]` the kind as JSON, `ARGV[2]` the proposed seq, `ARGV[3]`
/// max events, `ARGV[4]` a new stream's lifetime (ms). Returns the seq.
const APPEND_SCRIPT: &str = r"
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local seq = tonumber(ARGV[2])
if #last == 0 then
  redis.call('XADD', KEYS[1], string.format('%d-0', seq - 1), 'start', '1')
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
else
  local top = tonumber(string.match(last[1][1], '^(%d+)'))
  if seq <= top then seq = top + 1 end
end
redis.call('XADD', KEYS[1], 'MAXLEN', '~', ARGV[3], string.format('%d-0', seq), 'k', ARGV[1])
return seq
";

/// `KEYS[1]` the stream; `ARGV[1]` the reader's seq, `ARGV[2]` the most entries. Returns
/// `{gap, entries}` (gap 0 or 1; entries as `XRANGE` gives them).
const READ_SCRIPT: &str = r"
local after = tonumber(ARGV[1])
local first = redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', 1)
if #first == 0 then
  if after > 0 then return {1, {}} end
  return {0, {}}
end
local from = string.format('(%d-0', after)
if after > 0 and tonumber(string.match(first[1][1], '^(%d+)')) > after then
  return {1, redis.call('XRANGE', KEYS[1], '-', '+', 'COUNT', ARGV[2])}
end
return {0, redis.call('XRANGE', KEYS[1], from, '+', 'COUNT', ARGV[2])}
";

/// The Redis [`UserFeed`]. Cheap to clone; clones share the connections.
#[derive(Clone)]
pub struct RedisUserFeed {
    inner: Arc<Inner>,
}

pub(super) struct Inner {
    connection: Shared,
    /// On a cluster, appends announce themselves on the user's wake channel.
    cluster: bool,
    retention: Retention,
    tailer: Arc<Tailer>,
    append: Script,
    read: Script,
    /// The last seq this process appended: the next is above it even if the clock is not.
    last: AtomicU64,
}

impl RedisUserFeed {
    /// Connects (lazily) to Redis at `url` and starts the tailer task (on the current
    /// tokio runtime; it connects once a subscriber follows a feed).
    pub fn connect(url: &str, retention: Retention) -> Result<Self> {
        let topology = Topology::from_url(url)
            .map_err(|error| FeedError::Internal(format!("invalid Redis URL: {error}")))?;
        let connection = topology
            .shared(Timeouts::SEAMS)
            .map_err(|error| redis_error("connecting to Redis", error))?;
        Ok(Self {
            inner: Arc::new(Inner {
                connection,
                cluster: topology.is_cluster(),
                retention,
                tailer: Tailer::start(topology),
                append: Script::new(APPEND_SCRIPT),
                read: Script::new(READ_SCRIPT),
                last: AtomicU64::new(0),
            }),
        })
    }

    /// The users whose feeds the tailer follows for local subscribers.
    pub fn followed(&self) -> usize {
        self.inner.tailer.followed()
    }

    /// How many local subscribers follow `user_id`'s feed.
    pub fn followers(&self, user_id: Uuid) -> usize {
        self.inner.tailer.followers(user_id)
    }
}

impl Inner {
    /// The next seq this process proposes: its clock, above its last.
    fn propose(&self) -> u64 {
        let now = clock_micros();
        let mut current = self.last.load(Ordering::Relaxed);
        loop {
            let next = now.max(current + 1);
            match (self.last).compare_exchange_weak(
                current,
                next,
                Ordering::Relaxed,
                Ordering::Relaxed,
            ) {
                Ok(_) => return next,
                Err(actual) => current = actual,
            }
        }
    }

    async fn append(&self, user_id: Uuid, json: &str) -> Result<u64> {
        let key = keys::user_feed(user_id);
        let seq = self.propose();
        let mut connection = self.connection.clone();
        let mut xadd = ::redis::cmd("XADD");
        xadd.arg(&key)
            .arg("NOMKSTREAM")
            .arg("MAXLEN")
            .arg("~")
            .arg(self.retention.max_events)
            .arg(format!("{seq}-0"))
            .arg("k")
            .arg(json);
        let added: ::redis::RedisResult<Option<String>> = if self.cluster {
            // The wake goes out even when the `XADD` is refused: a wake too many only
            // makes the followers read once more.
            ::redis::pipe()
                .add_command(xadd)
                .add_command(self.wake(user_id))
                .ignore()
                .query_async::<(Option<String>,)>(&mut connection)
                .await
                .map(|(added,)| added)
        } else {
            xadd.query_async(&mut connection).await
        };
        match added {
            Ok(Some(_)) => return Ok(seq),
            Ok(None) => {}
            // The stream's top is above our clock: another process appended since.
            Err(error)
                if error.kind()
                    == ::redis::ErrorKind::Server(::redis::ServerErrorKind::ResponseError) => {}
            Err(error) => return Err(redis_error("appending to the user feed", error)),
        }
        let max_age = u64::try_from(self.retention.max_age.as_millis()).unwrap_or(u64::MAX);
        let seq: u64 = self
            .append
            .key(&key)
            .arg(json)
            .arg(seq)
            .arg(self.retention.max_events)
            .arg(max_age.max(1))
            .invoke_async(&mut connection)
            .await
            .map_err(|error| redis_error("appending to the user feed", error))?;
        self.last.fetch_max(seq, Ordering::Relaxed);
        if self.cluster {
            self.wake(user_id)
                .exec_async(&mut connection)
                .await
                .map_err(|error| redis_error("announcing a user feed event", error))?;
        }
        Ok(seq)
    }

    /// Announces an append on the user's wake channel (a cluster's tailers listen there).
    fn wake(&self, user_id: Uuid) -> ::redis::Cmd {
        let mut publish = ::redis::cmd("SPUBLISH");
        publish.arg(keys::user_feed_wake(user_id)).arg("");
        publish
    }

    async fn read(&self, user_id: Uuid, after: u64, limit: usize) -> Result<Read> {
        let (gap, entries): (u8, Vec<(String, Vec<String>)>) = self
            .read
            .key(keys::user_feed(user_id))
            .arg(after)
            // One more: the marker may come first.
            .arg(limit + 1)
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| redis_error("reading the user feed", error))?;
        let mut events = Vec::with_capacity(entries.len());
        for (id, fields) in entries {
            if let Some(event) = parse_entry(&id, &fields)? {
                events.push(event);
            }
        }
        events.truncate(limit);
        Ok(Read {
            events,
            gap: gap == 1,
        })
    }
}

/// The event of a stream entry; `None` for the marker.
fn parse_entry(id: &str, fields: &[String]) -> Result<Option<UserEvent>> {
    let corrupt = || FeedError::Internal(format!("a corrupt user feed entry: {id}"));
    let seq = id
        .split_once('-')
        .and_then(|(seq, _)| seq.parse().ok())
        .ok_or_else(corrupt)?;
    match fields {
        [field, json] if field == "k" => {
            let kind: UserEventKind = serde_json::from_str(json).map_err(|_| corrupt())?;
            Ok(Some(UserEvent { seq, kind }))
        }
        [field, _] if field == "start" => Ok(None),
        _ => Err(corrupt()),
    }
}

#[async_trait]
impl UserFeed for RedisUserFeed {
    async fn append(&self, user_id: Uuid, kind: UserEventKind) -> Result<UserEvent> {
        super::refuse_unstored(&kind)?;
        let json = serde_json::to_string(&kind)
            .map_err(|error| FeedError::Internal(format!("encoding a feed event: {error}")))?;
        let seq = self.inner.append(user_id, &json).await?;
        Ok(UserEvent { seq, kind })
    }

    async fn read(&self, user_id: Uuid, after: u64, limit: usize) -> Result<Read> {
        self.inner.read(user_id, after, limit).await
    }

    fn subscribe(&self, user_id: Uuid, after: u64) -> BoxStream<'static, Result<UserEvent>> {
        let state = Follower {
            inner: self.inner.clone(),
            user_id,
            after,
            wakes: None,
            pending: std::collections::VecDeque::new(),
            failed: false,
        };
        stream::unfold(state, |mut state| async move {
            if state.failed {
                return None;
            }
            let next = state.next().await;
            state.failed = next.is_err();
            Some((next, state))
        })
        .boxed()
    }

    async fn ready(&self) -> Result<()> {
        ::redis::cmd("PING")
            .exec_async(&mut self.inner.connection.clone())
            .await
            .map_err(|error| redis_error("pinging Redis", error))
    }
}

/// A subscriber: its cursor, its place among the tailer's followers and the events
/// read but not yet yielded.
struct Follower {
    inner: Arc<Inner>,
    user_id: Uuid,
    after: u64,
    wakes: Option<tailer::Following>,
    pending: std::collections::VecDeque<UserEvent>,
    failed: bool,
}

impl Follower {
    async fn next(&mut self) -> Result<UserEvent> {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if event.kind.is_stored() {
                    self.after = event.seq;
                }
                return Ok(event);
            }
            // Follow first, then read: whatever is appended in between wakes us.
            let following = match &mut self.wakes {
                Some(following) => following,
                None => self
                    .wakes
                    .insert(self.inner.tailer.follow(self.user_id, self.after)),
            };
            following.wakes.borrow_and_update();
            let read = self
                .inner
                .read(self.user_id, self.after, READ_BATCH)
                .await?;
            if read.gap {
                self.pending.push_back(UserEvent {
                    seq: 0,
                    kind: UserEventKind::Reset,
                });
                self.after = 0;
            }
            self.pending.extend(read.events);
            if !self.pending.is_empty() {
                continue;
            }
            let following = self.wakes.as_mut().expect("followed above");
            let _ = tokio::time::timeout(POLL_EVERY, following.wakes.changed()).await;
        }
    }
}

#[cfg(test)]
mod tests;
