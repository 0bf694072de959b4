//! The user-message stage: the user's message is saved once per prompt, and this stage
//! alone decides how. A repeated attempt reuses the message an earlier one saved. A
//! plain turn's message (no modules, no attachments: nothing else points at it yet) is
//! left to the sink, which writes it with the first checkpoint or, with the answer, in
//! the finish's transaction; any other is written now
//! ([`TurnSink::write_user_message`], the one writer before the finish), with its
//! attachments and what `chat:before_ai` found about it.

use parley_entity::{
    enums::MessageRole,
    files, prompts,
    query::{self, conversation::MessageRow},
};
use parley_service::modules::runner::HookOutcome;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::{attachments, error::TurnError, sink::TurnSink};

/// The message to save.
pub(super) struct Saving<'a> {
    /// Where it goes in the session's tree, and its id.
    pub place: super::context::Place,
    /// Its text as saved (`[blocked]` for a blocked one).
    pub content: &'a str,
    pub files: &'a [files::Model],
    /// What `chat:before_ai` found, when modules ran.
    pub before: Option<&'a HookOutcome>,
}

/// Saves the turn's user message (or finds the one saved before); returns its id.
#[tracing::instrument(name = "user_message", skip_all, err)]
pub(super) async fn save(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    message: Saving<'_>,
) -> Result<Uuid, TurnError> {
    if message.place.saved {
        let id = message.place.user_message_id;
        // Audits and findings were recorded with the message; this run is recorded.
        if let Some(before) = message.before {
            query::moderation::record_events(db, &before.events, query::now()).await?;
        }
        return Ok(id);
    }
    let row = MessageRow {
        id: message.place.user_message_id,
        role: MessageRole::User,
        content: message.content.to_owned(),
        prompt_id: Some(prompt.id),
        is_complete: true,
        parent_id: message.place.parent,
    };
    let id = row.id;
    if message.before.is_none() && message.files.is_empty() {
        sink.defer_user_message(prompt.session_id, row);
        return Ok(id);
    }
    let now = sink.write_user_message(prompt.session_id, row).await?;
    let blocks = attachments::blocks(message.files);
    query::conversation::attach_files(db, prompt.id, id, &blocks, now).await?;
    let none = HookOutcome::default();
    let before = message.before.unwrap_or(&none);
    crate::hooks::record(db, prompt.session_id, Some(id), before).await?;
    Ok(id)
}
