//! The event log seam (DESIGN §1, §6): one ordered log of [`StreamEvent`]s per prompt.
//!
//! The worker [appends](EventLog::append) the events of a turn; the api
//! [reads](EventLog::read) and [tails](EventLog::subscribe) them for any number of SSE
//! readers, who join from the start or after any `seq`; when the turn is over the worker
//! (or a background job) [expires](EventLog::expire) the log, and after the retention
//! window the api rebuilds the events from the database instead ([`EventLog::exists`]
//! tells it when).
//!
//! Guarantees every backend keeps (checked by `conformance` (its tests) against each of them):
//!
//! * `seq` is assigned by the log, gap-free from 1, even with concurrent appenders —
//!   except above a *floor*: a log that is empty (new, or lost with its backend: an
//!   embedded restart, a Redis without persistence) starts after the floor its appender
//!   gives, so a reader holding a seq from before the loss is not handed that seq again
//!   for another event (the database keeps each prompt's ceiling,
//!   `prompts.seq_ceiling`); a log that holds events ignores the floor;
//! * a subscriber sees every event after its starting point exactly once, in order, and
//!   its stream ends right after a terminal event (`complete`, `error`, `cancelled`)
//!   that is the last stored event — a resumed prompt's log goes on after the terminal
//!   event of its failed attempt — or, without one, when the log expires under it;
//! * readers are cheap: none holds a connection or a blocking read of its own, and
//!   dropping a subscription stream releases whatever it held;
//! * `ping` is never stored.
//!
//! The worker running a prompt appends through a [`EventWriter`] (one per attempt), which
//! a backend may make cheaper than [`EventLog::append`] (Redis: no read before each
//! write). The log also carries the one signal that goes the other way: a cancel, which
//! the api [signals](EventLog::signal_cancel) after recording it on the prompt's row and
//! the worker [listens](EventLog::listen_cancel) for ([`cancel`]).
//!
//! Backends: [`MemoryEventLog`] (embedded mode, in-process) and [`RedisEventLog`]
//! (distributed mode, one Redis stream per prompt plus a pub/sub notification).

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use parley_protocol::events::{EventKind, StreamEvent};
use uuid::Uuid;

pub mod cancel;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod memory;
pub mod redis;
pub mod shared;

pub use self::cancel::{CancelHeard, CancelListener};
pub use self::memory::MemoryEventLog;
pub use self::redis::RedisEventLog;
pub use self::shared::SharedEvent;

/// How long a log lives that nobody [expires](EventLog::expire): each log gets this
/// deadline when it is created, and the finish of its turn replaces it with the
/// retention. A log whose turn never finished normally (its worker died between the
/// last event and the retention, its session was deleted under it) so goes on its own
/// instead of staying forever; a turn that runs longer finds its log gone and starts it
/// again above its floor, and its readers reconnect.
pub const MAX_AGE: Duration = Duration::from_secs(24 * 3600);

/// How many events a subscriber fetches from storage at a time.
pub(crate) const READ_BATCH: usize = 256;

/// Why an event-log operation failed, grouped by what the caller must do about it.
#[derive(Debug, Clone, thiserror::Error)]
pub enum EventLogError {
    /// The backend cannot be reached (Redis down, timed out, failing over). The api
    /// answers `503`; retrying later may succeed.
    #[error("the event log is unavailable: {0}")]
    Unavailable(String),
    /// Anything else: a bug, a corrupt entry, an event that must not be stored.
    #[error("event log failure: {0}")]
    Internal(String),
}

pub type Result<T, E = EventLogError> = std::result::Result<T, E>;

/// Append / read-from-offset / tail / expire, per prompt. Object safe: callers hold an
/// `Arc<dyn EventLog>` chosen at start-up.
#[async_trait]
pub trait EventLog: Send + Sync {
    /// Stores `kind` as the next event of the prompt's log and returns it with its `seq`:
    /// the log's last seq plus one, or `floor + 1` when the log is empty. Appending the
    /// events that are never stored ([`EventKind::Ping`], `reconnect`, `reset`) is
    /// refused.
    async fn append_above(
        &self,
        prompt_id: Uuid,
        floor: u64,
        kind: EventKind,
    ) -> Result<StreamEvent>;

    /// [`append_above`](EventLog::append_above) with no floor: a log that starts at 1.
    async fn append(&self, prompt_id: Uuid, kind: EventKind) -> Result<StreamEvent> {
        self.append_above(prompt_id, 0, kind).await
    }

    /// The appender of one attempt at the prompt, for the worker that owns it. It appends
    /// as [`append_above`](EventLog::append_above) does — gap-free, alongside any other
    /// appender, above `floor` when the log is empty — and may be cheaper. `last_seq` is
    /// the log's last `seq` if the caller knows it (`0` for a prompt's first attempt:
    /// nothing has been appended yet), else the writer learns it. A log that vanishes
    /// under the writer starts again above everything the writer appended. The log must
    /// not expire while the writer is in use: the worker expires it once the attempt is
    /// over.
    fn writer(&self, prompt_id: Uuid, last_seq: Option<u64>, floor: u64) -> Box<dyn EventWriter>;

    /// Up to `limit` stored events with `seq > after`, in order. Empty for an unknown or
    /// expired log.
    async fn read(&self, prompt_id: Uuid, after: u64, limit: usize) -> Result<Vec<StreamEvent>>;

    /// Every event with `seq > after`, in order: first the stored ones, then the live ones
    /// as they are appended. The stream ends right after a terminal event, or when the log
    /// expires; a backend failure is yielded as one `Err` and ends it. Subscribing to a log
    /// that has no events waits for them — also one that has expired, so check
    /// [`exists`](EventLog::exists) first. Dropping the stream releases everything.
    fn subscribe(&self, prompt_id: Uuid, after: u64) -> BoxStream<'static, Result<StreamEvent>>;

    /// [`subscribe`](EventLog::subscribe), each event as a [`SharedEvent`]: a backend
    /// that keeps the latest events once for all the readers of a prompt in this process
    /// (Redis: the topic's window) hands each of them the same copy, with one wire form
    /// for all. The same events as `subscribe`, with the same guarantees; by default each
    /// reader gets copies of its own.
    fn subscribe_shared(
        &self,
        prompt_id: Uuid,
        after: u64,
    ) -> BoxStream<'static, Result<Arc<SharedEvent>>> {
        self.subscribe(prompt_id, after)
            .map(|event| event.map(SharedEvent::new))
            .boxed()
    }

    /// The log is finished: it stays readable for `retention`, then it is gone (`read`
    /// returns nothing and `exists` is false). Calling it again resets the deadline.
    async fn expire(&self, prompt_id: Uuid, retention: Duration) -> Result<()>;

    /// Whether the prompt's log holds events (false once it has expired).
    async fn exists(&self, prompt_id: Uuid) -> Result<bool>;

    /// The log's last event; `None` for an unknown or expired log.
    async fn last(&self, prompt_id: Uuid) -> Result<Option<StreamEvent>>;

    /// Whether the backend answers (for `/readyz`).
    async fn ready(&self) -> Result<()>;

    /// Drops the logs past their deadline now; returns how many. A backend whose storage
    /// drops them on its own (Redis: key expiry) has nothing to do. Run on a schedule, so
    /// an idle process frees them too.
    async fn prune(&self) -> Result<usize> {
        Ok(0)
    }

    /// Tells the prompt's [listeners](EventLog::listen_cancel), in any process, that a
    /// cancel was recorded on its row. Best effort: a signal can be lost, and listeners
    /// read the row when it may have been.
    async fn signal_cancel(&self, prompt_id: Uuid) -> Result<()>;

    /// Listens for the prompt's cancel signals sent from now on, until dropped.
    fn listen_cancel(&self, prompt_id: Uuid) -> CancelListener;
}

/// Appends the events of one attempt at a prompt ([`EventLog::writer`]). One append at a
/// time: the writer may keep the log's last `seq` between them.
#[async_trait]
pub trait EventWriter: Send + Sync {
    /// Stores `kind` as the next event of the prompt's log and returns it with its `seq`.
    async fn append(&mut self, kind: EventKind) -> Result<StreamEvent>;

    /// Stores `kinds` as the next events of the prompt's log, in order and together: no
    /// other appender's event comes between them, so their seqs are consecutive. A
    /// backend may make this one write (Redis: one entry, one round trip). Nothing for
    /// no events.
    async fn append_all(&mut self, kinds: Vec<EventKind>) -> Result<Vec<StreamEvent>>;

    /// The seq the next append takes unless another appender comes first; `None` when
    /// the writer does not know the log's end (before its first append, after a failure).
    fn next_seq(&self) -> Option<u64>;
}

/// The error for an attempt to store a keep-alive.
pub(crate) fn refuse_ping(kind: &EventKind) -> Result<()> {
    match kind {
        EventKind::Ping { .. } | EventKind::Reconnect { .. } | EventKind::Reset => {
            Err(EventLogError::Internal(
                "ping, reconnect and reset events are never stored in the event log".into(),
            ))
        }
        _ => Ok(()),
    }
}
