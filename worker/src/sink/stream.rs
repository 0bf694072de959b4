//! The prompt's event log as one attempt writes it: its events numbered after what the
//! log holds, never above the prompt's `seq_ceiling` the database holds (raised a block
//! at a time before an event would pass it), appended a batch at a time on their own
//! while the turn goes on ([`EventStream::append_soon`]).

use std::sync::Arc;

use parley_entity::query;
use parley_protocol::events::{EventKind, StreamEvent};
use parley_runtime::event_log::{EventLog, EventLogError, EventWriter};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::error::SinkError;

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

/// One attempt's writer of the prompt's event log.
pub(super) struct EventStream {
    /// The attempt's writer; `None` while [`EventStream::append_soon`]'s append holds it.
    writer: Option<Box<dyn EventWriter>>,
    /// An append started without waiting for it; the next append waits for it first.
    in_flight: Option<InFlight>,
    /// The last event appended.
    pub last_event: Option<StreamEvent>,
    db: DatabaseConnection,
    prompt_id: Uuid,
    /// The prompt's `seq_ceiling` as this attempt knows it.
    ceiling: u64,
}

/// An append running on its own, and the writer it hands back.
type InFlight = tokio::task::JoinHandle<(
    Box<dyn EventWriter>,
    Result<Vec<StreamEvent>, EventLogError>,
)>;

impl EventStream {
    pub fn new(
        events: &Arc<dyn EventLog>,
        seqs: Seqs,
        db: DatabaseConnection,
        prompt_id: Uuid,
    ) -> Self {
        Self {
            writer: Some(events.writer(prompt_id, seqs.last, seqs.floor)),
            in_flight: None,
            last_event: None,
            db,
            prompt_id,
            ceiling: seqs.ceiling,
        }
    }

    /// Appends `kinds` as one batch without waiting for the event log: the next append —
    /// or [`EventStream::settle`] — waits for it, so the order of events and any failure
    /// still reach the turn.
    pub async fn append_soon(&mut self, kinds: Vec<EventKind>) -> Result<(), SinkError> {
        self.settle().await?;
        let Some(mut writer) = self.writer.take() else {
            return Err(lost_writer().into());
        };
        let task = tokio::spawn(async move {
            let appended = writer.append_all(kinds).await;
            (writer, appended)
        });
        self.in_flight = Some(task);
        Ok(())
    }

    /// Waits for an append [`EventStream::append_soon`] started.
    pub async fn settle(&mut self) -> Result<(), SinkError> {
        self.writer().await.map(|_| ())
    }

    /// The seq of the next event, once what is in flight went out; `None` when the
    /// writer does not know the log's end.
    pub async fn next_seq(&mut self) -> Result<Option<u64>, SinkError> {
        Ok(self.writer().await?.next_seq())
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

    /// The writer, once an append in flight is done (its event becomes the last one).
    async fn writer(&mut self) -> Result<&mut Box<dyn EventWriter>, SinkError> {
        if let Some(task) = self.in_flight.take() {
            let (writer, appended) = task.await.map_err(|err| {
                EventLogError::Internal(format!("an event-log append did not finish: {err}"))
            })?;
            self.writer = Some(writer);
            if let Some(last) = appended?.pop() {
                self.below_ceiling(last.seq).await?;
                self.last_event = Some(last);
            }
        }
        self.writer.as_mut().ok_or_else(|| lost_writer().into())
    }
}

fn lost_writer() -> EventLogError {
    EventLogError::Internal("the turn's event-log writer was lost".into())
}
