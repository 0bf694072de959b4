//! The in-process user feed of embedded mode.
//!
//! Each user's feed is a `VecDeque` of events behind a [`tokio::sync::watch`] channel; a
//! subscriber is a watch receiver and a cursor. A feed is dropped [`Retention::max_age`]
//! after it was created (by [`prune`](UserFeed::prune), run on a schedule, and on the
//! next append); one with subscribers is started again in place, so they see the gap.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

use async_trait::async_trait;
use futures::stream::{self, BoxStream, StreamExt};
use parley_protocol::feed::{UserEvent, UserEventKind};
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

use super::{READ_BATCH, Read, Result, Retention, UserFeed, clock_micros, refuse_unstored};

/// The in-process [`UserFeed`]. Cheap to clone; clones share the feeds.
#[derive(Clone)]
pub struct MemoryUserFeed {
    inner: Arc<Inner>,
}

struct Inner {
    retention: Retention,
    feeds: Mutex<HashMap<Uuid, Feed>>,
}

struct Feed {
    /// Where the feed's numbering started: a reader before it missed events.
    start: u64,
    created: Instant,
    /// The highest seq dropped by trimming (0: none).
    trimmed: u64,
    last: u64,
    events: VecDeque<UserEvent>,
    /// Bumped on every append and restart.
    wakes: watch::Sender<u64>,
}

impl Feed {
    fn new() -> Self {
        let start = clock_micros();
        Self {
            start,
            created: Instant::now(),
            trimmed: 0,
            last: start,
            events: VecDeque::new(),
            wakes: watch::Sender::new(0),
        }
    }

    /// Starts the feed again (it outlived its age): a reader before now missed events.
    fn restart(&mut self) {
        let start = clock_micros().max(self.last + 1);
        self.start = start;
        self.last = start;
        self.created = Instant::now();
        self.trimmed = 0;
        self.events.clear();
        self.wakes.send_modify(|n| *n = n.wrapping_add(1));
    }

    fn read(&self, after: u64, limit: usize) -> Read {
        let gap = after > 0 && (after < self.start || after < self.trimmed);
        let events = self
            .events
            .iter()
            .filter(|event| gap || event.seq > after)
            .take(limit)
            .cloned()
            .collect();
        Read { events, gap }
    }
}

impl MemoryUserFeed {
    pub fn new(retention: Retention) -> Self {
        Self {
            inner: Arc::new(Inner {
                retention,
                feeds: Mutex::new(HashMap::new()),
            }),
        }
    }

    /// How many users' feeds it holds.
    pub fn feed_count(&self) -> usize {
        self.inner.feeds().len()
    }

    /// How many subscribers follow the user's feed.
    pub fn subscriber_count(&self, user_id: Uuid) -> usize {
        self.inner
            .feeds()
            .get(&user_id)
            .map_or(0, |feed| feed.wakes.receiver_count())
    }
}

impl Inner {
    fn feeds(&self) -> MutexGuard<'_, HashMap<Uuid, Feed>> {
        // Every update under the lock is a few field writes: a panic elsewhere cannot
        // leave a feed half-written.
        self.feeds
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Drops (or, with subscribers, restarts) the feeds past their age.
    fn sweep(&self) -> usize {
        let now = Instant::now();
        let max_age = self.retention.max_age;
        let mut feeds = self.feeds();
        let mut dropped = 0;
        feeds.retain(|_, feed| {
            if now.duration_since(feed.created) < max_age {
                return true;
            }
            dropped += 1;
            if feed.wakes.receiver_count() > 0 {
                feed.restart();
                true
            } else {
                false
            }
        });
        dropped
    }

    /// Follows the user's feed: registers the watch first, so nothing appended between
    /// the read and the wait goes unnoticed.
    fn watch(&self, user_id: Uuid) -> watch::Receiver<u64> {
        self.feeds()
            .entry(user_id)
            .or_insert_with(Feed::new)
            .wakes
            .subscribe()
    }
}

#[async_trait]
impl UserFeed for MemoryUserFeed {
    async fn append(&self, user_id: Uuid, kind: UserEventKind) -> Result<UserEvent> {
        refuse_unstored(&kind)?;
        let now = Instant::now();
        let retention = self.inner.retention;
        let mut feeds = self.inner.feeds();
        let feed = feeds.entry(user_id).or_insert_with(Feed::new);
        if now.duration_since(feed.created) >= retention.max_age {
            feed.restart();
        }
        feed.last += 1;
        let event = UserEvent {
            seq: feed.last,
            kind,
        };
        feed.events.push_back(event.clone());
        while feed.events.len() > retention.max_events.max(1) {
            if let Some(dropped) = feed.events.pop_front() {
                feed.trimmed = dropped.seq;
            }
        }
        feed.wakes.send_modify(|n| *n = n.wrapping_add(1));
        Ok(event)
    }

    async fn read(&self, user_id: Uuid, after: u64, limit: usize) -> Result<Read> {
        Ok(match self.inner.feeds().get(&user_id) {
            Some(feed) => feed.read(after, limit),
            // A feed that is gone (or never was) cannot vouch for anything after a seq.
            None => Read {
                events: Vec::new(),
                gap: after > 0,
            },
        })
    }

    fn subscribe(&self, user_id: Uuid, after: u64) -> BoxStream<'static, Result<UserEvent>> {
        let state = Follower {
            inner: self.inner.clone(),
            user_id,
            after,
            wakes: None,
            pending: VecDeque::new(),
        };
        stream::unfold(state, |mut state| async move {
            let event = state.next().await;
            Some((Ok(event), state))
        })
        .boxed()
    }

    async fn ready(&self) -> Result<()> {
        Ok(())
    }

    async fn prune(&self) -> Result<usize> {
        Ok(self.inner.sweep())
    }
}

/// A subscriber: its cursor, its watch and the events read but not yet yielded.
struct Follower {
    inner: Arc<Inner>,
    user_id: Uuid,
    after: u64,
    wakes: Option<watch::Receiver<u64>>,
    pending: VecDeque<UserEvent>,
}

impl Follower {
    async fn next(&mut self) -> UserEvent {
        loop {
            if let Some(event) = self.pending.pop_front() {
                if event.kind.is_stored() {
                    self.after = event.seq;
                }
                return event;
            }
            let wakes = match &mut self.wakes {
                Some(wakes) => wakes,
                None => self.wakes.insert(self.inner.watch(self.user_id)),
            };
            wakes.borrow_and_update();
            let read = match self.inner.feeds().get(&self.user_id) {
                Some(feed) => feed.read(self.after, READ_BATCH),
                None => Read::default(),
            };
            if read.gap {
                self.pending.push_back(reset());
                // Go on from the oldest event the feed holds.
                self.after = 0;
            }
            self.pending.extend(read.events);
            if !self.pending.is_empty() {
                continue;
            }
            if wakes.changed().await.is_err() {
                // The feed was dropped under us: follow its successor.
                self.wakes = None;
            }
        }
    }
}

fn reset() -> UserEvent {
    UserEvent {
        seq: 0,
        kind: UserEventKind::Reset,
    }
}

#[cfg(test)]
mod tests;
