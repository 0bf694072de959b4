//! The turn's user message from the moment the user-message stage saves it until it is
//! written: deferred (a plain turn's message, written by the first checkpoint or, with
//! the answer, by the finish's transaction) or written now — by [`UserMessage::write`],
//! the one place it is written before the end of the turn.

use parley_entity::query::{self, conversation::MessageRow};
use sea_orm::{DatabaseConnection, prelude::DateTimeUtc};
use uuid::Uuid;

use crate::error::SinkError;

/// Where the turn's user message is.
#[derive(Default)]
pub(super) struct UserMessage {
    /// Left to the first checkpoint or the end of the turn, with its session.
    pending: Option<(Uuid, MessageRow)>,
    /// Written before the end of the turn, and when (the history cache extends a session
    /// by what its turn wrote).
    written: Option<(MessageRow, DateTimeUtc)>,
}

impl UserMessage {
    pub fn defer(&mut self, session_id: Uuid, row: MessageRow) {
        self.pending = Some((session_id, row));
    }

    /// Writes `row` to session `session_id` now (it counts on the session and is named
    /// on prompt `prompt_id`). Returns when.
    pub async fn write(
        &mut self,
        db: &DatabaseConnection,
        prompt_id: Uuid,
        session_id: Uuid,
        row: MessageRow,
    ) -> Result<DateTimeUtc, SinkError> {
        let now = query::now();
        query::prompts::save_user_message(db, prompt_id, session_id, &row, now).await?;
        self.written = Some((row, now));
        Ok(now)
    }

    /// The deferred message, for the first checkpoint to write with its blocks (then
    /// [`UserMessage::written`]).
    pub fn take_deferred(&mut self) -> Option<(Uuid, MessageRow)> {
        self.pending.take()
    }

    /// A checkpoint wrote the message at `now`.
    pub fn written(&mut self, row: MessageRow, now: DateTimeUtc) {
        self.written = Some((row, now));
    }

    /// The message's text, pending or written (`None` before the stage saves it).
    pub fn text(&self) -> Option<&str> {
        self.pending
            .as_ref()
            .map(|(_, row)| row.content.as_str())
            .or_else(|| self.written.as_ref().map(|(row, _)| row.content.as_str()))
    }

    pub fn take_pending(&mut self) -> Option<MessageRow> {
        self.pending.take().map(|(_, row)| row)
    }

    pub fn take_written(&mut self) -> Option<(MessageRow, DateTimeUtc)> {
        self.written.take()
    }
}
