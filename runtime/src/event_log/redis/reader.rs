//! Reading a prompt's stream: [`Inner::fetch`] (`XRANGE` after an offset, and the last
//! entry with `XREVRANGE` when asked, in one pipelined round trip), the decoding of
//! entries, and the [`Reader`] behind every subscription — it joins its prompt's topic on
//! the shared [`listener`](super::listener) first, then reads what is stored in batches,
//! then takes live events from the topic's window as it is woken. Without a word for
//! [`POLL_EVERY`], one member of the topic reads the stream and shares what it found.
//!
//! A live reader from the start costs three commands: its share of `SUBSCRIBE` and
//! `UNSUBSCRIBE` and one `XRANGE`; the live events cost it none. It looks at the last
//! entry (`XREVRANGE`) only when that can tell it something a read cannot: when it starts
//! after some seq (it may have the terminal event already) and when its topic has heard
//! nothing for a while (the log may have expired).

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::{self, BoxStream};
use parley_protocol::events::StreamEvent;
use parley_protocol::keys;
use uuid::Uuid;

use super::listener::Membership;
use super::{Inner, POLL_EVERY, redis_error, wire};
use crate::event_log::{READ_BATCH, Result, SharedEvent};

/// How long a reader that has caught up waits for its channel subscription before it
/// reads the stream once more and starts waiting for notifications.
const READY_WAIT: Duration = Duration::from_secs(1);

impl Inner {
    /// Up to `limit` stored events after `after`; with `with_tail`, also the log's last
    /// event, in the same round trip.
    pub(super) async fn fetch(
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
        let decode_all = |entries: Vec<Entry>| -> Result<Vec<StreamEvent>> {
            let mut events = Vec::new();
            for (id, fields) in entries {
                events.extend(wire::decode_entry(prompt_id, &id, &fields)?);
            }
            Ok(events)
        };
        let events = match first {
            Some(first) => {
                // The first entry may be a batch that starts before `first`; a batch may
                // also take the read past `limit` (the next read goes on from there).
                let mut events = decode_all(replies.next().unwrap_or_default())?;
                events.retain(|event| event.seq >= first);
                events.truncate(limit);
                events
            }
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

impl Inner {
    /// The stream's last entry (`XREVRANGE … COUNT 1`).
    pub(super) async fn last(&self, prompt_id: Uuid) -> Result<Option<StreamEvent>> {
        let entries: Vec<Entry> = ::redis::cmd("XREVRANGE")
            .arg(keys::events(prompt_id))
            .arg("+")
            .arg("-")
            .arg("COUNT")
            .arg(1)
            .query_async(&mut self.connection.clone())
            .await
            .map_err(|error| redis_error("reading the event log", error))?;
        match entries.into_iter().next() {
            Some((id, fields)) => Ok(wire::decode_entry(prompt_id, &id, &fields)?.pop()),
            None => Ok(None),
        }
    }
}

/// What a fetch learned about the end of the log.
pub(super) enum Tail {
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

/// One subscription: a cursor, what it fetched but has not yielded yet, and its
/// membership in its prompt's topic.
pub(super) struct Reader {
    inner: Arc<Inner>,
    prompt_id: Uuid,
    next: u64,
    /// Shared with the topic's other readers when taken from its window.
    buffer: VecDeque<Arc<SharedEvent>>,
    started: bool,
    /// The last fetch filled a whole batch: fetch again before waiting (and before taking
    /// a terminal event at the end of the batch as the end of the log).
    more: bool,
    /// The log had events while we followed it; if it disappears now, it has expired.
    seen_log: bool,
    membership: Option<Membership>,
    done: bool,
}

impl Reader {
    /// A reader of the events after `after`, that has not looked at the log yet.
    pub(super) fn new(inner: Arc<Inner>, prompt_id: Uuid, after: u64) -> Self {
        Self {
            inner,
            prompt_id,
            next: after.saturating_add(1),
            buffer: VecDeque::new(),
            started: false,
            more: false,
            seen_log: false,
            membership: None,
            done: false,
        }
    }

    /// The reader as the stream
    /// [`EventLog::subscribe_shared`](crate::event_log::EventLog::subscribe_shared) returns.
    pub(super) fn into_stream(self) -> BoxStream<'static, Result<Arc<SharedEvent>>> {
        stream::unfold(self, |mut reader| async move {
            let item = reader.next_item().await?;
            Some((item, reader))
        })
        .boxed()
    }

    async fn next_item(&mut self) -> Option<Result<Arc<SharedEvent>>> {
        loop {
            if self.done {
                return None;
            }
            if let Some(event) = self.buffer.pop_front() {
                self.next = event.event().seq + 1;
                if self.buffer.is_empty() {
                    // An idle reader keeps no buffer: with thousands of readers open,
                    // a batch's capacity each would add up.
                    self.buffer = VecDeque::new();
                }
                // A terminal event ends the stream unless the log goes on after it (the
                // prompt was resumed: a new attempt follows). The last event of a read
                // that was not a whole batch, or the one just announced, was the last
                // stored; only at the end of a whole batch does it take another look.
                if event.event().kind.is_terminal() && self.buffer.is_empty() {
                    let goes_on =
                        self.more && self.fetch(false).await.is_ok() && !self.buffer.is_empty();
                    if !goes_on {
                        self.finish();
                    }
                }
                return Some(Ok(event));
            }
            let step = if !self.started {
                // Subscribed before the first read: nothing appended in between goes
                // unannounced. Starting after a seq, the reader may already hold the
                // terminal event: the last entry tells.
                self.started = true;
                self.join().await;
                self.fetch(self.next > 1).await
            } else if self.more {
                self.fetch(false).await
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
    pub(super) async fn fetch(&mut self, check_end: bool) -> Result<()> {
        // Boxed: the read's state would otherwise sit in every idle reader's future.
        let (events, tail) =
            Box::pin(
                self.inner
                    .fetch(self.prompt_id, self.next - 1, READ_BATCH, check_end),
            )
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
        self.take(events.into_iter().map(SharedEvent::new).collect());
        Ok(())
    }

    /// Queues `events` to yield; into an empty buffer they move without a copy.
    fn take(&mut self, events: Vec<Arc<SharedEvent>>) {
        if self.buffer.is_empty() {
            self.buffer = events.into();
        } else {
            self.buffer.extend(events);
        }
    }

    async fn join(&mut self) {
        let mut membership = self.inner.listener.join(self.prompt_id);
        // Until the channel is subscribed an append is announced to nobody, so wait for it
        // before the fetch. Bounded: without pub/sub the poll still finds events.
        let subscribed =
            tokio::time::timeout(READY_WAIT, membership.ready.wait_for(|ready| *ready))
                .await
                .is_ok_and(|ready| ready.is_ok());
        if subscribed {
            // Whatever the topic was told before now — a resync, an event already
            // stored — the fetch that follows covers.
            membership.wakes.borrow_and_update();
        }
        self.membership = Some(membership);
    }

    async fn wait(&mut self) -> Result<()> {
        let Some(membership) = self.membership.as_mut() else {
            return Ok(());
        };
        match tokio::time::timeout(POLL_EVERY, membership.wakes.changed()).await {
            Ok(Ok(())) => {
                membership.wakes.borrow_and_update();
                match membership.events_from(self.next) {
                    Some(events) => {
                        self.seen_log |= !events.is_empty();
                        self.take(events);
                        Ok(())
                    }
                    // Behind the window, or a resync (after which the log may be gone).
                    None => self.fetch(true).await,
                }
            }
            // Cannot happen while we are a member; join again rather than spin.
            Ok(Err(_closed)) => {
                self.membership = None;
                Ok(())
            }
            // No word for a while: one member of the topic looks at the stream (and
            // notices a finished or expired log) and shares what it found.
            Err(_elapsed) => {
                if !membership.take_poll_turn() {
                    return Ok(());
                }
                let topic = membership.topic();
                self.fetch(true).await?;
                let gone = self.done && self.buffer.is_empty();
                topic.share(self.buffer.iter().cloned(), gone);
                Ok(())
            }
        }
    }
}
