//! The user feed seam (DESIGN §13): one append-only log of [`UserEvent`]s per user —
//! sessions created, changed and deleted, turns started and finished, approvals, timers
//! fired — which the api follows for `GET /v1/feed`, so another tab or device sees what
//! happens across a user's sessions.
//!
//! Guarantees every backend keeps (checked by `conformance` (its tests) against each of them):
//!
//! * `seq` increases within a user's feed; it is *not* gap-free. A feed that is created
//!   (the user's first event, or the first after the feed expired or was lost with its
//!   backend) numbers above the clock (microseconds since the epoch), so it never hands
//!   out again a seq a reader may hold from before;
//! * retention is short and bounded: a feed keeps about [`Retention::max_events`] of its
//!   latest events, and it is dropped [`Retention::max_age`] after it was created (the
//!   next event starts a new one). The session list is the durable truth;
//! * a reader resuming after a seq whose successors the feed no longer holds (trimmed,
//!   expired, lost) is told: [`read`](UserFeed::read) says `gap`, and a subscription
//!   yields a [`UserEventKind::Reset`] (seq 0) and goes on with the oldest events the
//!   feed holds. Reading from `0` is never a gap;
//! * a subscriber sees every event after its starting point exactly once, in order, and
//!   never ends on its own; readers are cheap: none holds a connection or a blocking
//!   read of its own, and dropping a subscription releases what it held;
//! * `ping`, `reconnect` and `reset` are never stored.
//!
//! Services publish through a [`Publisher`], which never fails its caller: a failed
//! append is logged and counted (`parley_feed_publish_failures_total`), and the event
//! is lost — readers refetch the session list when they reconnect anyway.
//!
//! Backends: [`MemoryUserFeed`] (embedded mode) and [`RedisUserFeed`] (distributed
//! mode: one Redis stream per user, one `XADD` per event).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::stream::BoxStream;
use parley_protocol::feed::{UserEvent, UserEventKind};
use uuid::Uuid;

pub use crate::event_log::{EventLogError as FeedError, Result};

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod memory;
pub mod redis;

pub use self::memory::MemoryUserFeed;
pub use self::redis::RedisUserFeed;

/// How many events a subscriber reads from storage at a time.
pub(crate) const READ_BATCH: usize = 256;

/// How much of a feed is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// About how many of its latest events a feed keeps (Redis trims approximately:
    /// a little more may stay).
    pub max_events: usize,
    /// How long a feed lives after it was created.
    pub max_age: Duration,
}

impl Default for Retention {
    fn default() -> Self {
        Self {
            max_events: 1000,
            max_age: Duration::from_secs(24 * 3600),
        }
    }
}

/// What [`UserFeed::read`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    /// Up to `limit` events after the reader's seq, in order (the oldest the feed holds,
    /// after a gap).
    pub events: Vec<UserEvent>,
    /// The feed no longer holds every event after the reader's seq.
    pub gap: bool,
}

/// Append / read / tail, per user. Object safe: callers hold an `Arc<dyn UserFeed>`
/// chosen at start-up.
#[async_trait]
pub trait UserFeed: Send + Sync {
    /// Stores `kind` as the user's next event and returns it with its seq. The kinds that
    /// are never stored (`ping`, `reconnect`, `reset`) are refused.
    async fn append(&self, user_id: Uuid, kind: UserEventKind) -> Result<UserEvent>;

    /// Up to `limit` stored events with `seq > after`, and whether some were lost.
    async fn read(&self, user_id: Uuid, after: u64, limit: usize) -> Result<Read>;

    /// Every event with `seq > after`, in order: the stored ones, then the live ones as
    /// they come; a [`Reset`](UserEventKind::Reset) (seq 0) where events were lost. A
    /// backend failure is yielded as one `Err` and ends the stream; otherwise it never
    /// ends. Dropping it releases everything.
    fn subscribe(&self, user_id: Uuid, after: u64) -> BoxStream<'static, Result<UserEvent>>;

    /// Whether the backend answers (for `/readyz`).
    async fn ready(&self) -> Result<()>;

    /// Drops the feeds past their age now; returns how many. A backend whose storage
    /// drops them on its own (Redis: key expiry) has nothing to do.
    async fn prune(&self) -> Result<usize> {
        Ok(0)
    }
}

/// The error for an attempt to store a kind that is never stored.
pub(crate) fn refuse_unstored(kind: &UserEventKind) -> Result<()> {
    if kind.is_stored() {
        Ok(())
    } else {
        Err(FeedError::Internal(format!(
            "`{}` events are never stored in the user feed",
            kind.type_name()
        )))
    }
}

/// The clock in microseconds since the epoch: where a new feed's numbering starts.
pub(crate) fn clock_micros() -> u64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap_or_default();
    u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
}

/// The one-line way to publish on a user's feed, held by the services and the worker.
/// Publishing never fails the caller: a failed append is logged and counted.
#[derive(Clone)]
pub struct Publisher {
    feed: Arc<dyn UserFeed>,
}

impl std::fmt::Debug for Publisher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Publisher").finish_non_exhaustive()
    }
}

impl Publisher {
    pub fn new(feed: Arc<dyn UserFeed>) -> Self {
        Self { feed }
    }

    /// A publisher over an in-process feed nobody reads (tests, tools).
    pub fn detached() -> Self {
        Self::new(Arc::new(MemoryUserFeed::new(Retention::default())))
    }

    /// The feed it appends to (the api follows it).
    pub fn feed(&self) -> &Arc<dyn UserFeed> {
        &self.feed
    }

    /// Appends `kind` to `user_id`'s feed; a failure is logged and counted, never
    /// returned.
    pub async fn publish(&self, user_id: Uuid, kind: UserEventKind) {
        let type_name = kind.type_name();
        if let Err(error) = self.feed.append(user_id, kind).await {
            crate::metrics::metrics().feed_publish_failures.inc();
            tracing::warn!(%error, %user_id, event = type_name, "cannot publish on the user feed");
        }
    }
}
