//! Session titles from a model (`[titles] model`): after a session's first exchange, a
//! task of its own asks the configured model for a short title and sets it — unless the
//! owner named the session meanwhile (the generator only ever replaces the first-words
//! title the finish wrote, [`session_edits::set_generated_title`]). It runs after the
//! turn is told, off its path: the turn's statements and latency do not change, and a
//! failure only leaves the first-words title. The call is recorded in the usage ledger
//! under the turn's prompt (no message: it is not part of the conversation).
//!
//! Without a title model nothing runs: the first words are the title.

use std::{sync::Arc, time::Duration};

use parley_entity::query::session_edits;
use parley_protocol::feed::UserEventKind;
use parley_runtime::user_feed::Publisher;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::{
    providers::{Catalog, ChatMessage, TITLE_INSTRUCTIONS as INSTRUCTIONS},
    side_call,
};

/// How much of the first message the title model sees, in characters.
const MAX_INPUT_CHARS: usize = 2000;

/// How long the title call may take in all.
const TIMEOUT: Duration = Duration::from_secs(60);

/// The session whose first exchange just finished.
#[derive(Debug, Clone, Copy)]
pub struct Untitled {
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    /// The prompt of that exchange (the ledger's row of the title call names it).
    pub prompt_id: Uuid,
}

/// Starts titling `session` with `model` on a task of its own.
/// The owner's feed hears the title it set.
pub fn spawn(
    db: DatabaseConnection,
    catalog: Arc<Catalog>,
    feed: Publisher,
    model: String,
    session: Untitled,
) {
    tokio::spawn(async move {
        match tokio::time::timeout(TIMEOUT, title(&db, &catalog, &model, session)).await {
            Ok(Ok(Some(title))) => {
                tracing::debug!(session_id = %session.session_id, %title, "titled a session");
                let titled = UserEventKind::session_titled(session.session_id, title);
                feed.publish(session.user_id, titled).await;
            }
            Ok(Ok(None)) => {}
            Ok(Err(err)) => {
                tracing::warn!(error = %err, session_id = %session.session_id, "cannot title a session")
            }
            Err(_) => {
                tracing::warn!(session_id = %session.session_id, "the title model took too long")
            }
        }
    });
}

/// Asks `model` for a title of the session's first message and sets it. The title set,
/// or `None` when nothing was set (no message, a blank answer, or a title the generator
/// must not replace).
pub async fn title(
    db: &DatabaseConnection,
    catalog: &Catalog,
    model: &str,
    session: Untitled,
) -> Result<Option<String>, Box<dyn std::error::Error + Send + Sync>> {
    // The finish titled the session with the first words of this message (never a
    // blocked one, which starts no title task).
    let Some(first) = session_edits::first_user_message(db, session.session_id).await? else {
        return Ok(None);
    };
    let route = catalog
        .resolve(Some(model))
        .ok_or_else(|| format!("the title model `{model}` is not served here"))?;
    let text: String = first.chars().take(MAX_INPUT_CHARS).collect();
    let messages = [ChatMessage::system(INSTRUCTIONS), ChatMessage::user(text)];
    let ledger = side_call::Ledger {
        prompt_id: session.prompt_id,
        session_id: session.session_id,
        user_id: session.user_id,
        tool_id: session.tool_id,
    };
    let answer = side_call::ask(db, route, &messages, ledger).await?;
    let Some(title) = session_edits::clean_generated(&answer) else {
        return Ok(None);
    };
    let set = session_edits::set_generated_title(db, session.session_id, &title).await?;
    Ok(set.then_some(title))
}
