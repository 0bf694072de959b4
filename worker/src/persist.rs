//! Persistence while a turn streams (DESIGN §5.9): every event goes to the prompt's event
//! log (through the attempt's [`EventWriter`]), partial blocks are checkpointed to the
//! database at most once per interval (so `GET /v1/sessions/{id}/streaming` and resume
//! have something to show), and a [`Watcher`] turns a cancel — or a lost lease — into a
//! signal the agent loop sees.

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use parley_entity::query::{
    self,
    conversation::{self, BlockDraft, MessageRow},
};
use parley_protocol::events::{EventKind, StreamEvent};
use parley_runtime::event_log::{EventLog, EventLogError, EventWriter};
use sea_orm::{DatabaseConnection, prelude::DateTimeUtc};
use tokio::sync::watch;
use uuid::Uuid;

use crate::agent_loop::{Sink, SinkError};

mod coalesce;
mod watcher;

pub use coalesce::Coalescer;
pub use watcher::{DbRow, PromptRow, Stop, Watcher};

/// How one attempt's events are numbered (DESIGN §6, `prompts.seq_ceiling`).
#[derive(Debug, Clone, Copy)]
pub struct Seqs {
    /// The log's last seq if known ([`EventLog::writer`]: `Some(0)` for an empty log).
    pub last: Option<u64>,
    /// An empty log (a lost one) starts above this.
    pub floor: u64,
    /// The prompt's `seq_ceiling`: the sink raises it before its events pass it.
    pub ceiling: u64,
}

impl Seqs {
    /// Numbering that never touches the database (tests).
    pub fn unbounded() -> Self {
        Self {
            last: Some(0),
            floor: 0,
            ceiling: u64::MAX,
        }
    }
}

/// The agent loop's sink for one turn: the event log, block checkpoints, the watcher.
pub struct TurnSink {
    /// The attempt's writer; `None` while [`TurnSink::event_soon`]'s append holds it.
    events: Option<Box<dyn EventWriter>>,
    /// An append started without waiting for it; the next append waits for it first.
    in_flight: Option<InFlight>,
    pub db: DatabaseConnection,
    pub prompt_id: Uuid,
    pub checkpoint_interval: Duration,
    /// When the last checkpoint was written (at first: when the turn started, so a turn
    /// shorter than the interval writes none and its end writes everything at once).
    last_checkpoint: Instant,
    /// Whether a checkpoint wrote blocks.
    checkpointed: bool,
    /// The user message of a plain turn, written by the first checkpoint or the end of
    /// the turn (with the session it counts on).
    pending_user: Option<(Uuid, MessageRow)>,
    /// The user message this attempt wrote before its end, and when (the history cache
    /// extends a session by what its turn wrote).
    written_user: Option<(MessageRow, DateTimeUtc)>,
    stop: watch::Receiver<Stop>,
    /// The last event appended (the caller reads its `seq`).
    pub last_event: Option<StreamEvent>,
    /// Hold-back (a tool whose after_ai modules must see the answer first): the answer's
    /// events wait here until [`TurnSink::release`] or [`TurnSink::discard_held`].
    held: Option<Vec<EventKind>>,
    /// Merges fast deltas before they are appended.
    coalescer: Coalescer,
    /// The prompt's `seq_ceiling` as this attempt knows it.
    ceiling: u64,
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
            events: Some(events.writer(prompt_id, seqs.last, seqs.floor)),
            in_flight: None,
            db,
            prompt_id,
            checkpoint_interval,
            last_checkpoint: Instant::now(),
            checkpointed: false,
            pending_user: None,
            written_user: None,
            stop: watcher.receiver(),
            last_event: None,
            held: None,
            coalescer: Coalescer::new(Duration::ZERO, 1),
            ceiling: seqs.ceiling,
        }
    }

    /// Merges consecutive deltas of a block that arrive within `window` of the last one
    /// sent (up to `max_bytes`); zero: every delta is its own event.
    pub fn coalesce(mut self, window: Duration, max_bytes: usize) -> Self {
        self.coalescer = Coalescer::new(window, max_bytes);
        self
    }

    /// From now on, the answer's events are held back (state and status events still go
    /// out at once).
    pub fn hold_back(&mut self) {
        self.held.get_or_insert_with(Vec::new);
    }

    /// Sends the held events (consecutive deltas of one block merged into one event) and
    /// stops holding.
    pub async fn release(&mut self) -> Result<(), SinkError> {
        let Some(held) = self.held.take() else {
            return Ok(());
        };
        for kind in merge_deltas(held) {
            self.append(kind).await?;
        }
        Ok(())
    }

    /// Drops the held events (the answer was replaced before anyone saw it) and stops
    /// holding. Returns whether anything was held.
    pub fn discard_held(&mut self) -> bool {
        self.held.take().is_some()
    }

    async fn append(&mut self, kind: EventKind) -> Result<(), SinkError> {
        let event = self.writer().await?.append(kind).await?;
        self.below_ceiling(event.seq).await?;
        self.last_event = Some(event);
        Ok(())
    }

    /// Raises the prompt's `seq_ceiling` a block above `seq` when the next event would
    /// pass it: no event may be given out above the ceiling the database holds.
    async fn below_ceiling(&mut self, seq: u64) -> Result<(), SinkError> {
        if seq < self.ceiling {
            return Ok(());
        }
        let to = seq.saturating_add(query::prompts::SEQ_BLOCK as u64);
        let bound = i64::try_from(to).unwrap_or(i64::MAX);
        query::prompts::raise_seq_ceiling(&self.db, self.prompt_id, bound).await?;
        self.ceiling = to;
        Ok(())
    }

    /// The seq the `n`th event appended from now will have (1: the next), once what
    /// waits went out; `None` while events are held back, or when the writer does not
    /// know the log's end. Another appender (a background function call) may come first:
    /// the caller checks the seq it gets.
    pub async fn seq_ahead(&mut self, n: u64) -> Result<Option<u64>, SinkError> {
        if self.held.is_some() {
            return Ok(None);
        }
        if let Some(waiting) = self.coalescer.take(Instant::now()) {
            self.append(waiting).await?;
        }
        let next = self.writer().await?.next_seq();
        Ok(next.map(|next| next + n.saturating_sub(1)))
    }

    /// Appends `kind` without waiting for the event log: the append runs on its own
    /// while the turn goes on (a `prompt_state` need not hold up the model call by a
    /// round trip), and the next append — or [`TurnSink::settle`] — waits for it, so
    /// the order of events and any failure still reach the turn. Not for held-back
    /// events or deltas (they go through [`Sink::event`]).
    pub async fn event_soon(&mut self, kind: EventKind) -> Result<(), SinkError> {
        self.settle().await?;
        let Some(mut writer) = self.events.take() else {
            return Err(lost_writer().into());
        };
        let task = tokio::spawn(async move {
            let appended = writer.append(kind).await;
            (writer, appended)
        });
        self.in_flight = Some(task);
        Ok(())
    }

    /// Waits for an append [`TurnSink::event_soon`] started.
    pub async fn settle(&mut self) -> Result<(), SinkError> {
        self.writer().await.map(|_| ())
    }

    /// The writer, once an append in flight is done (its event becomes the last one).
    async fn writer(&mut self) -> Result<&mut Box<dyn EventWriter>, SinkError> {
        if let Some(task) = self.in_flight.take() {
            let (writer, appended) = task.await.map_err(|err| {
                EventLogError::Internal(format!("an event-log append did not finish: {err}"))
            })?;
            self.events = Some(writer);
            let appended = appended?;
            self.below_ceiling(appended.seq).await?;
            self.last_event = Some(appended);
        }
        self.events.as_mut().ok_or_else(|| lost_writer().into())
    }

    /// Leaves the user message of session `session_id` to the first checkpoint or the
    /// end of the turn.
    pub fn defer_user_message(&mut self, session_id: Uuid, row: MessageRow) {
        self.pending_user = Some((session_id, row));
    }

    /// The deferred user message no checkpoint has written (for the end of the turn).
    pub fn take_pending_user(&mut self) -> Option<MessageRow> {
        self.pending_user.take().map(|(_, row)| row)
    }

    /// Notes that the user message was written at `at` (before the end of the turn).
    pub fn wrote_user_message(&mut self, row: MessageRow, at: DateTimeUtc) {
        self.written_user = Some((row, at));
    }

    /// The user message written before the end of the turn, and when.
    pub fn take_written_user(&mut self) -> Option<(MessageRow, DateTimeUtc)> {
        self.written_user.take()
    }

    /// Whether a checkpoint wrote blocks of this turn.
    pub fn checkpointed(&self) -> bool {
        self.checkpointed
    }

    /// Writes the drafts (and, the first time, a deferred user message) now.
    async fn checkpoint(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError> {
        if let Some((session_id, row)) = self.pending_user.take() {
            let now = query::now();
            query::prompts::save_user_message(&self.db, self.prompt_id, session_id, &row, now)
                .await?;
            self.wrote_user_message(row, now);
        }
        conversation::checkpoint_blocks(&self.db, self.prompt_id, drafts, query::now()).await?;
        self.checkpointed |= !drafts.is_empty();
        self.last_checkpoint = Instant::now();
        Ok(())
    }
}

#[async_trait::async_trait]
impl Sink for TurnSink {
    async fn event(&mut self, kind: EventKind) -> Result<(), SinkError> {
        if let Some(held) = self.held.as_mut()
            && !matches!(
                kind,
                EventKind::PromptState { .. } | EventKind::Status { .. }
            )
        {
            held.push(kind);
            return Ok(());
        }
        for ready in self
            .coalescer
            .push(kind, Instant::now())
            .into_iter()
            .flatten()
        {
            self.append(ready).await?;
        }
        Ok(())
    }

    async fn drafts(&mut self, drafts: &[BlockDraft]) -> Result<(), SinkError> {
        if self.last_checkpoint.elapsed() >= self.checkpoint_interval {
            self.checkpoint(drafts).await?;
        }
        Ok(())
    }

    fn cancelled(&self) -> bool {
        *self.stop.borrow() != Stop::Running
    }

    async fn until_cancelled(&self) {
        let mut stop = self.stop.clone();
        let _ = stop.wait_for(|s| *s != Stop::Running).await;
    }

    fn due(&self) -> Option<Instant> {
        self.coalescer.due()
    }

    async fn flush_due(&mut self) -> Result<(), SinkError> {
        match self.coalescer.take(Instant::now()) {
            Some(kind) => self.append(kind).await,
            None => Ok(()),
        }
    }
}

fn lost_writer() -> EventLogError {
    EventLogError::Internal("the turn's event-log writer was lost".into())
}

/// An append running on its own, and the writer it hands back.
type InFlight = tokio::task::JoinHandle<(Box<dyn EventWriter>, Result<StreamEvent, EventLogError>)>;

/// Merges each run of consecutive deltas of one block into one delta.
fn merge_deltas(events: Vec<EventKind>) -> Vec<EventKind> {
    let mut merged: Vec<EventKind> = Vec::with_capacity(events.len());
    for event in events {
        match (merged.last_mut(), event) {
            (
                Some(EventKind::TextDelta { index, text }),
                EventKind::TextDelta {
                    index: next,
                    text: more,
                },
            ) if *index == next => text.push_str(&more),
            (
                Some(EventKind::ThinkingDelta { index, text }),
                EventKind::ThinkingDelta {
                    index: next,
                    text: more,
                },
            ) if *index == next => text.push_str(&more),
            (_, event) => merged.push(event),
        }
    }
    merged
}

#[cfg(test)]
mod tests {
    use parley_runtime::event_log::MemoryEventLog;

    use super::*;

    /// A prompt row nobody cancels or takes.
    struct QuietRow;

    #[async_trait::async_trait]
    impl PromptRow for QuietRow {
        async fn renew(&self) -> Result<bool, parley_entity::error::Error> {
            Ok(true)
        }

        async fn cancel_requested(&self) -> Result<bool, parley_entity::error::Error> {
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
        EventKind::PromptState {
            state: parley_protocol::events::PromptState::InProgress,
            attempt: 1,
        }
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
        assert_eq!(sink.last_event.as_ref().map(|e| e.seq), Some(2));

        // Settling alone makes the started append the last event.
        let other = Uuid::now_v7();
        let (mut sink, _watcher) = memory_sink(&log, other);
        sink.event_soon(in_progress()).await.unwrap();
        sink.settle().await.unwrap();
        assert_eq!(sink.last_event.as_ref().map(|e| e.seq), Some(1));
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

    #[test]
    fn held_deltas_of_one_block_merge() {
        let delta = |index, text: &str| EventKind::TextDelta {
            index,
            text: text.into(),
        };
        let merged = merge_deltas(vec![
            EventKind::BlockStart {
                index: 0,
                block_type: parley_protocol::events::BlockType::Text,
            },
            delta(0, "Hel"),
            delta(0, "lo"),
            EventKind::BlockStop { index: 0 },
            delta(1, "a"),
            EventKind::ThinkingDelta {
                index: 2,
                text: "b".into(),
            },
            delta(1, "c"),
        ]);
        assert_eq!(merged.len(), 6);
        assert_eq!(merged[1], delta(0, "Hello"));
        assert_eq!(merged[3], delta(1, "a"));
    }
}
