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
use parley_runtime::event_log::{EventLog, EventWriter};
use sea_orm::{DatabaseConnection, prelude::DateTimeUtc};
use tokio::sync::watch;
use uuid::Uuid;

use crate::agent_loop::{Sink, SinkError};

mod coalesce;
mod watcher;

pub use coalesce::Coalescer;
pub use watcher::{DbRow, PromptRow, Stop, Watcher};

/// The agent loop's sink for one turn: the event log, block checkpoints, the watcher.
pub struct TurnSink {
    events: Box<dyn EventWriter>,
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
}

impl TurnSink {
    /// A sink for one attempt at the prompt; `last_seq` is its log's last seq if known
    /// (see [`EventLog::writer`]).
    pub fn new(
        events: &Arc<dyn EventLog>,
        last_seq: Option<u64>,
        db: DatabaseConnection,
        prompt_id: Uuid,
        checkpoint_interval: Duration,
        watcher: &Watcher,
    ) -> Self {
        Self {
            events: events.writer(prompt_id, last_seq),
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
        let event = self.events.append(kind).await?;
        self.last_event = Some(event);
        Ok(())
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
    use super::*;

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
