//! Persistence while a turn streams (DESIGN §5.9): the agent loop's [`Sink`] for one
//! attempt, [`TurnSink`], made of one part per concern —
//!
//! * [`stream`] — the prompt's event log, numbered under the prompt's `seq_ceiling`;
//! * [`coalesce`] — fast deltas merged before they are appended;
//! * [`outbox`] — events produced together appended as one batch;
//! * [`held`] — hold-back: the answer's events kept until the after-hooks decide;
//! * checkpoints — partial blocks written to the database at most once per interval (so
//!   `GET /v1/sessions/{id}/streaming` and resume have something to show);
//! * [`user_message`] — the turn's user message until it is written;
//! * [`watcher`] — a cancel, or a lost lease, turned into a signal the loop sees.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use parley_entity::query::{
    self,
    conversation::{BlockDraft, MessageRow},
    prompts::{LeaseRenewal, LeaseState},
};
use parley_protocol::events::{EventKind, PromptState, StreamEvent};
use parley_runtime::event_log::EventLog;
use sea_orm::{DatabaseConnection, prelude::DateTimeUtc};
use tokio::sync::watch;
use uuid::Uuid;

use crate::agent_loop::{Sink, SinkError};

mod coalesce;
mod held;
mod outbox;
mod stream;
mod user_message;
mod watcher;

pub use coalesce::Coalescer;
pub use stream::Seqs;
pub use watcher::{DbRow, LeaseReports, PromptRow, Renewed, Stop, Watcher};

/// The agent loop's sink for one attempt at a prompt.
pub struct TurnSink {
    db: DatabaseConnection,
    prompt_id: Uuid,
    stream: stream::EventStream,
    coalescer: Coalescer,
    outbox: outbox::Outbox,
    held: held::Held,
    checkpoints: Checkpoints,
    user_message: user_message::UserMessage,
    stop: watch::Receiver<Stop>,
    lease: Option<CheckpointLease>,
}

/// The lease a checkpoint renews beside what it writes.
struct CheckpointLease {
    worker: String,
    length: Duration,
    reports: LeaseReports,
    /// False once a checkpoint found the lease lost.
    held: bool,
}

/// When partial blocks were last written.
struct Checkpoints {
    /// The most often they are written.
    interval: Duration,
    /// When the last checkpoint was written (at first: when the turn started, so a turn
    /// shorter than the interval writes none and its end writes everything at once).
    last: Instant,
    /// Whether a checkpoint wrote blocks.
    wrote_blocks: bool,
}

impl TurnSink {
    /// A sink for one attempt at the prompt, numbering its events by `seqs`.
    pub fn new(
        events: &Arc<dyn EventLog>,
        seqs: Seqs,
        db: DatabaseConnection,
        prompt_id: Uuid,
        checkpoint_interval: Duration,
        watcher: &Watcher,
    ) -> Self {
        Self {
            stream: stream::EventStream::new(events, seqs, db.clone(), prompt_id),
            db,
            prompt_id,
            coalescer: Coalescer::new(Duration::ZERO, 1),
            outbox: outbox::Outbox::default(),
            held: held::Held::default(),
            checkpoints: Checkpoints {
                interval: checkpoint_interval,
                last: Instant::now(),
                wrote_blocks: false,
            },
            user_message: user_message::UserMessage::default(),
            stop: watcher.receiver(),
            lease: None,
        }
    }

    /// Checkpoints renew `worker`'s lease of `length` too, and tell `watcher`.
    pub fn renews_lease(mut self, worker: &str, length: Duration, watcher: &Watcher) -> Self {
        self.lease = Some(CheckpointLease {
            worker: worker.to_owned(),
            length,
            reports: watcher.reports(),
            held: true,
        });
        self
    }

    /// Merges consecutive deltas of a block that arrive in the same window as the last
    /// one sent (windows of `window`, shared by the process's turns; up to `max_bytes`);
    /// zero: every delta is its own event.
    pub fn coalesce(mut self, window: Duration, max_bytes: usize) -> Self {
        self.coalescer = Coalescer::new(window, max_bytes);
        self
    }

    /// The last event appended (the caller reads its `seq`), as of the last
    /// [`TurnSink::settle`].
    pub fn last_event(&self) -> Option<&StreamEvent> {
        self.stream.last_event.as_ref()
    }

    /// From now on, the answer's events are held back (state and status events still go
    /// out at once).
    pub fn hold_back(&mut self) {
        self.held.start();
    }

    /// Sends the held events (consecutive deltas of one block merged into one event) and
    /// stops holding.
    pub async fn release(&mut self) -> Result<(), SinkError> {
        let Some(held) = self.held.release() else {
            // Nothing was held: what waits goes with the turn's end.
            return Ok(());
        };
        let now = Instant::now();
        for kind in held {
            self.outbox.push(kind, now);
        }
        self.send().await
    }

    /// Drops the held events (the answer was replaced before anyone saw it) and stops
    /// holding. Returns whether anything was held.
    pub fn discard_held(&mut self) -> bool {
        self.held.release().is_some()
    }

    /// The seq the `n`th event appended from now will have (1: the next), once what
    /// waits went out; `None` while events are held back, or when the writer does not
    /// know the log's end. Another appender (a background function call) may come first:
    /// the caller checks the seq it gets.
    pub async fn seq_ahead(&mut self, n: u64) -> Result<Option<u64>, SinkError> {
        if self.held.is_holding() {
            return Ok(None);
        }
        let now = Instant::now();
        if let Some(waiting) = self.coalescer.take(now) {
            self.outbox.push(waiting, now);
        }
        // What waits goes out first, in one batch with whatever follows it.
        let waiting = self.outbox.len() as u64;
        let next = self.stream.next_seq().await?;
        Ok(next.map(|next| next + waiting + n.saturating_sub(1)))
    }

    /// Appends `kind`, with whatever waits, without waiting for the event log: the
    /// append runs on its own while the turn goes on (a `prompt_state` need not hold up
    /// the model call by a round trip), and the next append — or [`TurnSink::settle`] —
    /// waits for it, so the order of events and any failure still reach the turn. Not
    /// for held-back events or deltas (they go through [`Sink::event`]).
    pub async fn event_soon(&mut self, kind: EventKind) -> Result<(), SinkError> {
        self.outbox.push(kind, Instant::now());
        self.send().await
    }

    /// Appends everything that waits (merged deltas too) and waits for the event log:
    /// afterwards [`TurnSink::last_event`] is the turn's last event.
    pub async fn settle(&mut self) -> Result<(), SinkError> {
        if let Some(waiting) = self.coalescer.take(Instant::now()) {
            self.outbox.push(waiting, Instant::now());
        }
        self.send().await?;
        self.stream.settle().await
    }

    /// Starts appending the outbox's events as one batch, if any wait.
    async fn send(&mut self) -> Result<(), SinkError> {
        match self.outbox.take() {
            Some(batch) => self.stream.append_soon(batch).await,
            None => Ok(()),
        }
    }

    /// Leaves the user message of session `session_id` to the first checkpoint or the
    /// end of the turn.
    pub fn defer_user_message(&mut self, session_id: Uuid, row: MessageRow) {
        self.user_message.defer(session_id, row);
    }

    /// Writes the turn's user message to session `session_id` now (it counts on the
    /// session and is named on the prompt). Returns when.
    pub async fn write_user_message(
        &mut self,
        session_id: Uuid,
        row: MessageRow,
    ) -> Result<DateTimeUtc, SinkError> {
        let (db, prompt_id) = (&self.db, self.prompt_id);
        self.user_message
            .write(db, prompt_id, session_id, row)
            .await
    }

    /// The deferred user message no checkpoint has written (for the end of the turn).
    /// The turn's user message as saved (after the hooks), pending or written.
    pub fn user_text(&self) -> Option<&str> {
        self.user_message.text()
    }

    pub fn take_pending_user(&mut self) -> Option<MessageRow> {
        self.user_message.take_pending()
    }

    /// The user message written before the end of the turn, and when.
    pub fn take_written_user(&mut self) -> Option<(MessageRow, DateTimeUtc)> {
        self.user_message.take_written()
    }

    /// Whether a checkpoint wrote blocks of this turn.
    pub fn checkpointed(&self) -> bool {
        self.checkpoints.wrote_blocks
    }

    /// Writes the drafts (and, the first time, a deferred user message) now, renewing the
    /// lease with the prompt in `state`: one statement on PostgreSQL.
    async fn checkpoint(
        &mut self,
        drafts: &[BlockDraft],
        state: PromptState,
    ) -> Result<(), SinkError> {
        let (db, prompt_id) = (&self.db, self.prompt_id);
        let user = self.user_message.take_deferred();
        let now = query::now();
        let row = user.as_ref().map(|(session_id, row)| (*session_id, row));
        let sent = tokio::time::Instant::now();
        let renewal = self.lease.as_ref().map(|lease| LeaseRenewal {
            worker: &lease.worker,
            until: now + chrono::Duration::from_std(lease.length).unwrap_or_default(),
            state: Some(state),
        });
        let found = query::prompts::checkpoint(db, prompt_id, row, drafts, renewal, now).await?;
        if let (Some(found), Some(lease)) = (found, &mut self.lease) {
            lease.held = found != LeaseState::Lost;
            lease.reports.report(Renewed {
                at: sent,
                state: found,
            });
        }
        if let Some((_, row)) = user {
            self.user_message.written(row, now);
        }
        self.checkpoints.wrote_blocks |= !drafts.is_empty();
        self.checkpoints.last = Instant::now();
        Ok(())
    }
}

#[async_trait::async_trait]
impl Sink for TurnSink {
    fn retract(&mut self, from_block: u32) -> bool {
        self.held.retract(from_block)
    }

    async fn event(&mut self, kind: EventKind) -> Result<(), SinkError> {
        let Some(kind) = self.held.keep(kind) else {
            return Ok(());
        };
        let now = Instant::now();
        let mut now_due = false;
        for ready in self.coalescer.push(kind, now).into_iter().flatten() {
            now_due |= self.outbox.push(ready, now);
        }
        if now_due { self.send().await } else { Ok(()) }
    }

    async fn drafts(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError> {
        if self.checkpoints.last.elapsed() >= self.checkpoints.interval {
            self.checkpoint(drafts, PromptState::InProgress).await?;
        }
        Ok(())
    }

    fn cancelled(&self) -> bool {
        *self.stop.borrow() != Stop::Running
    }

    fn until_cancelled(&self) -> futures::future::BoxFuture<'static, ()> {
        let mut stop = self.stop.clone();
        Box::pin(async move {
            let _ = stop.wait_for(|s| *s != Stop::Running).await;
        })
    }

    fn due(&self) -> Option<Instant> {
        [self.coalescer.due(), self.outbox.due()]
            .into_iter()
            .flatten()
            .min()
    }

    async fn flush_due(&mut self) -> Result<(), SinkError> {
        let now = Instant::now();
        if self.coalescer.due().is_some_and(|due| due <= now)
            && let Some(kind) = self.coalescer.take(now)
        {
            self.outbox.push(kind, now);
        }
        self.send().await
    }

    async fn flush(&mut self) -> Result<(), SinkError> {
        self.send().await
    }

    async fn checkpoint_now(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError> {
        self.settle().await?;
        self.checkpoint(drafts, PromptState::WaitingForTools).await
    }

    fn checkpoints_keep_the_state(&self) -> bool {
        self.lease.as_ref().is_some_and(|lease| lease.held)
            && self.db.get_database_backend() == sea_orm::DbBackend::Postgres
    }
}

#[cfg(test)]
mod tests {
    use parley_runtime::event_log::{EventLogError, MemoryEventLog};

    use super::*;

    /// A prompt row nobody cancels or takes.
    struct QuietRow;

    #[async_trait::async_trait]
    impl PromptRow for QuietRow {
        async fn renew(&self) -> Result<LeaseState, parley_protocol::error::Error> {
            Ok(LeaseState::Held { cancelled: false })
        }

        async fn cancel_requested(&self) -> Result<bool, parley_protocol::error::Error> {
            Ok(false)
        }
    }

    /// A sink on an in-memory log (no database: its checkpoint interval is never reached).
    fn memory_sink(log: &Arc<dyn EventLog>, prompt_id: Uuid) -> (TurnSink, Watcher) {
        let lease = Duration::from_secs(30);
        let watcher = Watcher::start(QuietRow, log.listen_cancel(prompt_id), lease);
        let db = DatabaseConnection::default();
        let sink = TurnSink::new(
            log,
            Seqs::unbounded(),
            db,
            prompt_id,
            Duration::MAX,
            &watcher,
        );
        (sink, watcher)
    }

    fn in_progress() -> EventKind {
        EventKind::state(parley_protocol::events::PromptState::InProgress, 1)
    }

    #[tokio::test]
    async fn an_append_started_on_its_own_comes_before_the_next_one() {
        let log: Arc<dyn EventLog> = Arc::new(MemoryEventLog::new());
        let prompt_id = Uuid::now_v7();
        let (mut sink, _watcher) = memory_sink(&log, prompt_id);
        sink.event_soon(in_progress()).await.unwrap();
        sink.event(EventKind::BlockStart {
            index: 0,
            block_type: parley_protocol::events::BlockType::Text,
        })
        .await
        .unwrap();
        sink.settle().await.unwrap();
        let events = log.read(prompt_id, 0, 10).await.unwrap();
        let kinds: Vec<(u64, &str)> = events.iter().map(|e| (e.seq, e.type_name())).collect();
        assert_eq!(kinds, [(1, "prompt_state"), (2, "block_start")]);
        assert_eq!(sink.last_event().map(|e| e.seq), Some(2));

        // Settling alone makes the started append the last event.
        let other = Uuid::now_v7();
        let (mut sink, _watcher) = memory_sink(&log, other);
        sink.event_soon(in_progress()).await.unwrap();
        sink.settle().await.unwrap();
        assert_eq!(sink.last_event().map(|e| e.seq), Some(1));
        assert_eq!(log.read(other, 0, 10).await.unwrap().len(), 1);
    }

    #[tokio::test]
    async fn a_failed_append_started_on_its_own_fails_the_next_one() {
        let log: Arc<dyn EventLog> = Arc::new(MemoryEventLog::new());
        let prompt_id = Uuid::now_v7();
        let (mut sink, _watcher) = memory_sink(&log, prompt_id);
        // The log refuses to store a keep-alive: the append fails, later.
        sink.event_soon(EventKind::Ping { ts: 0 }).await.unwrap();
        let next = sink.event(in_progress()).await;
        assert!(
            matches!(next, Err(SinkError::Events(EventLogError::Internal(_)))),
            "{next:?}"
        );
    }
}
