//! Appending to a prompt's stream: the [`APPEND_SCRIPT`] that any appender may use, and
//! the cheaper [`Writer`] of the worker that owns an attempt.
//!
//! The script reads the stream's last id and adds the next one (`XREVRANGE` → `XADD
//! <seq>-0` → `PUBLISH`), atomically: any number of appenders get gap-free seqs, and each
//! notification goes out with its entry. It costs a read per append.
//!
//! A [`Writer`] keeps the last `seq` instead (learnt from its first append, or told: a
//! prompt's first attempt starts an empty log), so its appends are one pipelined round
//! trip, `XADD <key> NOMKSTREAM <seq>-0` + `PUBLISH`, with no read. Redis
//! refuses an id that is not above the stream's last one, so if another appender (the
//! api resuming the prompt, a background function call reporting its result) moved the
//! tail meanwhile, the `XADD` fails and the writer appends with the script instead,
//! learning the tail again. `NOMKSTREAM` keeps a log that vanished under the writer (a
//! Redis restart) from being recreated where the writer left it; the script then starts
//! it over above the writer's floor, which is above every seq the writer appended.
//!
//! What the pipeline gives up: its `PUBLISH` goes out even when its `XADD` was refused,
//! announcing an event that was not stored. That notification is harmless: the seq it
//! names was taken by an appender that stored *and* announced its event before — the
//! script does both at once, and a writer pipelines `seq` only when it stored `seq − 1`
//! (or was told the log is empty) — so a reader that follows has already taken the real
//! event and ignores the stale seq.
//! Two writers both pipelining the same seq would need two owners of one attempt, which
//! the lease prevents.
//!
//! A writer rides out a short Redis outage (a restart, a failover): an append that
//! fails because Redis cannot be reached is tried again for up to [`APPEND_PATIENCE`],
//! backing off. Whether the failed try landed (the connection dropped after Redis ran
//! it) is read back, not guessed: every entry carries a random tag (`n`) beside its
//! kind, and before trying again the writer looks for its tag among the log's newest
//! entries. A Redis that lost the log (no persistence) has no tag, and the append
//! starts the log over above the writer's floor.

use std::sync::Arc;
use std::time::Duration;

use ::redis::Script;
use async_trait::async_trait;
use parley_protocol::events::{EventKind, StreamEvent};
use parley_protocol::keys;
use uuid::Uuid;

use super::wire::Payload;
use super::{Inner, redis_error};
use crate::event_log::{EventLogError, EventWriter, Result};

/// How long a writer keeps trying an append Redis cannot take (it is down or failing
/// over) before the append fails.
pub const APPEND_PATIENCE: Duration = Duration::from_secs(5);

/// How many of the log's newest entries a writer searches for the tag of an append
/// whose outcome it did not learn (other appenders may have added a few after it).
const TAG_LOOKBACK: usize = 32;

/// `KEYS[1]` the stream, `ARGV[1]` the entry's JSON, `ARGV[2]` the notify channel, `ARGV[3]`
/// the floor (an empty stream starts above it), `ARGV[4]` a new stream's deadline (ms),
/// `ARGV[5]` the entry's tag, `ARGV[6]` the entry's field (`k` or `b`), `ARGV[7]` how many
/// events it holds, `ARGV[8]` the publishing command (`PUBLISH`, or `SPUBLISH` on a
/// cluster). Returns the seq of its first event.
const APPEND_SCRIPT: &str = r"
local last = redis.call('XREVRANGE', KEYS[1], '+', '-', 'COUNT', 1)
local first = tonumber(ARGV[3]) + 1
if #last > 0 then
  first = tonumber(string.match(last[1][1], '^(%d+)')) + 1
end
local id = string.format('%d-0', first + tonumber(ARGV[7]) - 1)
redis.call('XADD', KEYS[1], id, ARGV[6], ARGV[1], 'n', ARGV[5])
if #last == 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[4])
end
redis.call(ARGV[8], ARGV[2], string.format('%d:', first) .. ARGV[1])
return first
";

pub(super) fn append_script() -> Script {
    Script::new(APPEND_SCRIPT)
}

/// A fresh entry tag: the random half of a UUIDv7 (62 random bits).
pub(super) fn new_tag() -> String {
    format!("{:016x}", Uuid::now_v7().as_u64_pair().1)
}

impl Inner {
    /// Appends with the script (above `floor` if the log is empty); returns the seq of
    /// its first event.
    pub(super) async fn append_anywhere(
        &self,
        prompt_id: Uuid,
        floor: u64,
        payload: &Payload,
        tag: &str,
    ) -> Result<u64> {
        self.append
            .key(keys::events(prompt_id))
            .arg(&payload.json)
            .arg(keys::notify(prompt_id))
            .arg(floor)
            .arg(max_age_ms())
            .arg(tag)
            .arg(payload.field)
            .arg(payload.count)
            .arg(self.publish)
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|error| redis_error("appending to the event log", error))
    }

    /// Appends with its first event at `first` if that is the log's next seq (`fresh`:
    /// the log is empty, and `first` is its first); false if it is not.
    async fn append_at(
        &self,
        prompt_id: Uuid,
        first: u64,
        fresh: bool,
        payload: &Payload,
        tag: &str,
    ) -> Result<bool> {
        let last = first + payload.count - 1;
        let mut pipe = ::redis::pipe();
        let xadd = pipe.cmd("XADD").arg(keys::events(prompt_id));
        if !fresh {
            xadd.arg("NOMKSTREAM");
        }
        xadd.arg(format!("{last}-0"))
            .arg(payload.field)
            .arg(&payload.json)
            .arg("n")
            .arg(tag);
        if fresh {
            // A new log's deadline, until its turn's finish sets the retention.
            pipe.cmd("PEXPIRE")
                .arg(keys::events(prompt_id))
                .arg(max_age_ms())
                .ignore();
        }
        let stored: ::redis::RedisResult<(Option<String>, i64)> = pipe
            .cmd(self.publish)
            .arg(keys::notify(prompt_id))
            .arg(payload.notification(first))
            .query_async(&mut self.connection.clone())
            .await;
        match stored {
            Ok((id, _)) => Ok(id.is_some()),
            Err(error) if refused_id(&error) => Ok(false),
            Err(error) => Err(redis_error("appending to the event log", error)),
        }
    }

    /// The seq of the entry tagged `tag` among the log's newest (of its last event), if
    /// it is there.
    pub(super) async fn tagged(&self, prompt_id: Uuid, tag: &str) -> Result<Option<u64>> {
        let newest: Vec<(String, Vec<(String, String)>)> = ::redis::cmd("XREVRANGE")
            .arg(keys::events(prompt_id))
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(TAG_LOOKBACK)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| redis_error("reading the event log", error))?;
        Ok(newest
            .iter()
            .find(|(_, fields)| fields.iter().any(|(k, v)| k == "n" && v == tag))
            .and_then(|(id, _)| id.split('-').next()?.parse().ok()))
    }
}

fn max_age_ms() -> u64 {
    crate::event_log::MAX_AGE.as_millis() as u64
}

/// Whether Redis refused an `XADD` because its id is not above the stream's last one.
fn refused_id(error: &::redis::RedisError) -> bool {
    error.clone().into_server_errors().is_some_and(|errors| {
        errors.iter().any(|(_, error)| {
            error
                .details()
                .is_some_and(|details| details.contains("equal or smaller"))
        })
    })
}

/// The appender of one attempt ([`EventLog::writer`](crate::event_log::EventLog::writer)).
pub(super) struct Writer {
    pub(super) inner: Arc<Inner>,
    pub(super) prompt_id: Uuid,
    /// The seq the next append takes, when known; unknown after a failure.
    pub(super) next: Option<u64>,
    /// Whether `next` starts an empty log (the caller said so; nothing appended yet).
    pub(super) fresh: bool,
    /// Above the writer's floor and every seq it appended.
    pub(super) floor: u64,
}

impl Writer {
    /// One try at appending `payload` tagged `tag`; the seq of its first event.
    async fn try_append(&mut self, payload: &Payload, tag: &str) -> Result<u64> {
        let fresh = std::mem::take(&mut self.fresh);
        match self.next.take() {
            Some(first)
                if self
                    .inner
                    .append_at(self.prompt_id, first, fresh, payload, tag)
                    .await? =>
            {
                Ok(first)
            }
            _ => {
                (self.inner)
                    .append_anywhere(self.prompt_id, self.floor, payload, tag)
                    .await
            }
        }
    }
}

#[async_trait]
impl EventWriter for Writer {
    async fn append(&mut self, kind: EventKind) -> Result<StreamEvent> {
        let mut events = self.append_all(vec![kind]).await?;
        events
            .pop()
            .ok_or_else(|| EventLogError::Internal("an append stored nothing".into()))
    }

    /// One entry, so one `XADD` and one `PUBLISH` in one round trip, whatever `kinds`
    /// holds.
    async fn append_all(&mut self, kinds: Vec<EventKind>) -> Result<Vec<StreamEvent>> {
        if kinds.is_empty() {
            return Ok(Vec::new());
        }
        let payload = Payload::of(&kinds)?;
        let tag = new_tag();
        let give_up = tokio::time::Instant::now() + APPEND_PATIENCE;
        let mut pause = Duration::from_millis(50);
        let first = loop {
            let error = match self.try_append(&payload, &tag).await {
                Ok(first) => break first,
                Err(error @ EventLogError::Unavailable(_)) => error,
                Err(error) => return Err(error),
            };
            if tokio::time::Instant::now() + pause > give_up {
                return Err(error);
            }
            tracing::warn!(prompt_id = %self.prompt_id, %error, "appending to the event log again");
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_secs(1));
            // The failed try may have landed before the connection went.
            if let Ok(Some(last)) = self.inner.tagged(self.prompt_id, &tag).await {
                break last + 1 - payload.count;
            }
        };
        let last = first + payload.count - 1;
        self.next = Some(last + 1);
        self.floor = self.floor.max(last);
        Ok(kinds
            .into_iter()
            .zip(first..)
            .map(|(kind, seq)| StreamEvent {
                seq,
                prompt_id: self.prompt_id,
                kind,
            })
            .collect())
    }

    fn next_seq(&self) -> Option<u64> {
        self.next
    }
}
