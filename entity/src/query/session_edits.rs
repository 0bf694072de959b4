//! What an owner does to their own sessions besides talking in them: name, pin, archive
//! and delete them; and the titles a session gets by itself after its first exchange.
//!
//! Every function here finds the session through the owner (another user's session, or
//! a deleted one, answers as missing).
//!
//! **Deleting** (DESIGN §4 departure, docs/decisions.md): the owner's content goes in one
//! transaction — the session's messages (with their moderation audit rows, which cascade
//! from them), the answers' blocks, the tool calls and their archived payloads, the
//! extractions, and the prompts' text (input, system message, response, route, error
//! text, idempotency key). The `sessions` row stays as a content-free tombstone
//! (`deleted_at` set, title and request id cleared, completed with `end_reason`
//! `deleted` if it was active) with its prompts' bare rows, so the
//! usage ledger (`ai_usage`, whose keys cascade from sessions and prompts) keeps every
//! row: model, tokens, cost, latency and error class, with `message_id` cleared. Notes,
//! to-dos and timers are the user's own and stay, no longer tied to the session. A session
//! answering a turn (a prompt created or running) is refused with 409 `prompt_active`:
//! cancel the turn first.

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, Func, Query},
};
use uuid::Uuid;

use super::sessions::get_owned;
use crate::{
    blocks, enums::PromptState, enums::TitleSource, error::Context, extractions, messages, notes,
    prompts, sessions, timers, todos, tool_call_archive, tool_calls,
};

/// What an owner changes about a session; `None` leaves a field as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SessionChanges {
    /// `Some(Some(title))` names it (trimmed, not blank, at most
    /// [`sessions::TITLE_MAX_CHARS`]); `Some(None)` clears the title, so the next finished
    /// exchange titles it again.
    pub title: Option<Option<String>>,
    pub pinned: Option<bool>,
    pub archived: Option<bool>,
}

impl SessionChanges {
    /// Whether nothing would change.
    pub fn is_empty(&self) -> bool {
        self.title.is_none() && self.pinned.is_none() && self.archived.is_none()
    }
}

/// A title as the owner typed it: trimmed; blank or too long is refused (422
/// `invalid_title`).
pub fn owner_title(title: &str) -> Result<String> {
    let title = title.trim();
    if title.is_empty() {
        return Err(Error::invalid(
            ErrorCode::InvalidTitle,
            "the title is blank",
        ));
    }
    if title.chars().count() > sessions::TITLE_MAX_CHARS {
        return Err(Error::invalid(
            ErrorCode::InvalidTitle,
            format!(
                "the title is longer than {} characters",
                sessions::TITLE_MAX_CHARS
            ),
        ));
    }
    Ok(title.to_owned())
}

/// Applies the owner's `changes` to their session and returns it as it is now. Pinning
/// a pinned session keeps its `pinned_at` (likewise archiving).
pub async fn change<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
    changes: SessionChanges,
    now: DateTimeUtc,
) -> Result<sessions::Model> {
    use sessions::Column as S;
    let session = get_owned(db, user_id, id).await?;
    if changes.is_empty() {
        return Ok(session);
    }
    let mut update = sessions::Entity::update_many();
    if let Some(title) = changes.title {
        let title = title.as_deref().map(owner_title).transpose()?;
        let source = title.as_ref().map(|_| TitleSource::User);
        update = update
            .col_expr(S::Title, Expr::value(title))
            .col_expr(S::TitleSource, Expr::value(source));
    }
    let stamp = |on: bool, column: S| {
        if on {
            Func::coalesce([Expr::col(column), Expr::value(now)]).into()
        } else {
            Expr::value(Option::<DateTimeUtc>::None)
        }
    };
    if let Some(pinned) = changes.pinned {
        update = update.col_expr(S::PinnedAt, stamp(pinned, S::PinnedAt));
    }
    if let Some(archived) = changes.archived {
        update = update.col_expr(S::ArchivedAt, stamp(archived, S::ArchivedAt));
    }
    update
        .filter(S::Id.eq(session.id))
        .filter(S::DeletedAt.is_null())
        .exec(db)
        .await
        .context("changing a session")?;
    get_owned(db, user_id, id).await
}

/// Deletes the owner's session as the module docs say, and returns it as it was.
pub async fn delete(
    db: &DatabaseConnection,
    user_id: Uuid,
    id: Uuid,
    now: DateTimeUtc,
) -> Result<sessions::Model> {
    let txn = super::begin_write(db, "starting to delete a session").await?;
    let session = get_owned(&txn, user_id, id).await?;
    // The guard: only an idle, undeleted session of this owner becomes a tombstone.
    let busy = Query::select()
        .expr(Expr::val(1))
        .from(prompts::Entity)
        .and_where(prompts::Column::SessionId.eq(id))
        .and_where(
            prompts::Column::State.is_in(
                PromptState::ALL
                    .iter()
                    .filter(|s| !s.is_terminal())
                    .copied(),
            ),
        )
        .to_owned();
    let marked = sessions::Entity::update_many()
        .col_expr(sessions::Column::DeletedAt, Expr::value(now))
        .col_expr(sessions::Column::Title, Expr::value(Option::<String>::None))
        .col_expr(
            sessions::Column::TitleSource,
            Expr::value(Option::<TitleSource>::None),
        )
        .col_expr(sessions::Column::Rid, Expr::value(Option::<String>::None))
        // An active session ends with its deletion (no `session:end`: nothing is left
        // for a module to read).
        .col_expr(
            sessions::Column::State,
            Expr::value(crate::enums::SessionState::Completed),
        )
        .col_expr(
            sessions::Column::EndedAt,
            Func::coalesce([Expr::col(sessions::Column::EndedAt), Expr::value(now)]).into(),
        )
        .col_expr(
            sessions::Column::EndReason,
            Func::coalesce([
                Expr::col(sessions::Column::EndReason),
                Expr::value("deleted"),
            ])
            .into(),
        )
        .col_expr(
            sessions::Column::PinnedAt,
            Expr::value(Option::<DateTimeUtc>::None),
        )
        .filter(sessions::Column::Id.eq(id))
        .filter(sessions::Column::DeletedAt.is_null())
        .filter(sessions::Column::ActivePromptId.is_null())
        .filter(Expr::exists(busy).not())
        .exec(&txn)
        .await
        .context("marking a session deleted")?;
    if marked.rows_affected == 0 {
        return Err(Error::conflict(
            ErrorCode::PromptActive,
            "the session is answering a turn; cancel it before deleting the session",
        ));
    }
    let prompt_ids = Query::select()
        .column(prompts::Column::Id)
        .from(prompts::Entity)
        .and_where(prompts::Column::SessionId.eq(id))
        .to_owned();
    let call_ids = Query::select()
        .column(tool_calls::Column::Id)
        .from(tool_calls::Entity)
        .and_where(tool_calls::Column::SessionId.eq(id))
        .to_owned();
    tool_call_archive::Entity::delete_many()
        .filter(tool_call_archive::Column::Id.in_subquery(call_ids))
        .exec(&txn)
        .await
        .context("deleting a session's archived tool calls")?;
    tool_calls::Entity::delete_many()
        .filter(tool_calls::Column::SessionId.eq(id))
        .exec(&txn)
        .await
        .context("deleting a session's tool calls")?;
    blocks::Entity::delete_many()
        .filter(blocks::Column::PromptId.in_subquery(prompt_ids))
        .exec(&txn)
        .await
        .context("deleting a session's blocks")?;
    extractions::Entity::delete_many()
        .filter(extractions::Column::SessionId.eq(id))
        .exec(&txn)
        .await
        .context("deleting a session's extractions")?;
    // Clears the prompts' and the ledger's message ids; the audit rows cascade.
    messages::Entity::delete_many()
        .filter(messages::Column::SessionId.eq(id))
        .exec(&txn)
        .await
        .context("deleting a session's messages")?;
    prompts::Entity::update_many()
        .col_expr(prompts::Column::Input, Expr::cust("NULL"))
        .col_expr(prompts::Column::SystemMessage, Expr::cust("NULL"))
        .col_expr(prompts::Column::Response, Expr::cust("NULL"))
        .col_expr(prompts::Column::Route, Expr::cust("NULL"))
        .col_expr(prompts::Column::Error, Expr::cust("NULL"))
        .col_expr(prompts::Column::IdempotencyKey, Expr::cust("NULL"))
        .col_expr(prompts::Column::RequestHash, Expr::cust("NULL"))
        .filter(prompts::Column::SessionId.eq(id))
        .exec(&txn)
        .await
        .context("emptying a session's prompts")?;
    unlink(&txn, id).await?;
    txn.commit()
        .await
        .context("committing a session's deletion")?;
    Ok(session)
}

/// The user's notes, to-dos and timers stay theirs, no longer tied to the session.
async fn unlink<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    notes::Entity::update_many()
        .col_expr(notes::Column::SessionId, Expr::cust("NULL"))
        .filter(notes::Column::SessionId.eq(id))
        .exec(db)
        .await
        .context("unlinking a deleted session's notes")?;
    todos::Entity::update_many()
        .col_expr(todos::Column::SessionId, Expr::cust("NULL"))
        .filter(todos::Column::SessionId.eq(id))
        .exec(db)
        .await
        .context("unlinking a deleted session's to-dos")?;
    timers::Entity::update_many()
        .col_expr(timers::Column::SessionId, Expr::cust("NULL"))
        .filter(timers::Column::SessionId.eq(id))
        .exec(db)
        .await
        .context("unlinking a deleted session's timers")?;
    Ok(())
}

/// The first words of a user's message as a title: white space collapsed, at most
/// [`FIRST_WORDS`] words and [`FIRST_WORDS_CHARS`] characters, cut on a word boundary
/// (a first word longer than that is cut and ends with `…`). `None` without a word.
pub fn first_words(text: &str) -> Option<String> {
    let mut title = String::new();
    for word in text.split_whitespace().take(FIRST_WORDS) {
        let len = title.chars().count() + usize::from(!title.is_empty()) + word.chars().count();
        if len > FIRST_WORDS_CHARS {
            if title.is_empty() {
                title = word.chars().take(FIRST_WORDS_CHARS - 1).collect();
                title.push('…');
            }
            break;
        }
        if !title.is_empty() {
            title.push(' ');
        }
        title.push_str(word);
    }
    (!title.is_empty()).then_some(title)
}

/// How many words a first-words title takes at most.
pub const FIRST_WORDS: usize = 6;
/// How many characters a first-words title takes at most.
pub const FIRST_WORDS_CHARS: usize = 60;

/// Sets a title the title model wrote, unless the session has one that is not the first
/// words (the owner's, or the model's already) or is deleted. Whether it was set.
pub async fn set_generated_title<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    title: &str,
) -> Result<bool> {
    use sessions::Column as S;
    let Some(title) = clean_generated(title) else {
        return Ok(false);
    };
    let updated = sessions::Entity::update_many()
        .col_expr(S::Title, Expr::value(title))
        .col_expr(S::TitleSource, Expr::value(TitleSource::Model))
        .filter(S::Id.eq(id))
        .filter(S::DeletedAt.is_null())
        .filter(
            sea_orm::Condition::any()
                .add(S::TitleSource.is_null())
                .add(S::TitleSource.eq(TitleSource::Words)),
        )
        .exec(db)
        .await
        .context("titling a session")?;
    Ok(updated.rows_affected == 1)
}

/// A model's answer as a title: its first line, without surrounding quotes, `Title:` or a
/// final full stop, at most [`sessions::TITLE_MAX_CHARS`] characters. `None` when blank.
pub fn clean_generated(answer: &str) -> Option<String> {
    let line = answer.lines().map(str::trim).find(|l| !l.is_empty())?;
    let line = line
        .strip_prefix("Title:")
        .or_else(|| line.strip_prefix("title:"))
        .unwrap_or(line)
        .trim()
        .trim_matches(|c| matches!(c, '"' | '\'' | '*' | '#' | '“' | '”'))
        .trim()
        .trim_end_matches('.')
        .trim();
    let title: String = line.chars().take(sessions::TITLE_MAX_CHARS).collect();
    (!title.is_empty()).then_some(title)
}

/// The session's first user message, for the title model (`None`: it has none).
pub async fn first_user_message<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
) -> Result<Option<String>> {
    messages::Entity::find()
        .select_only()
        .column(messages::Column::Content)
        .filter(messages::Column::SessionId.eq(session_id))
        .filter(messages::Column::Role.eq(crate::enums::MessageRole::User))
        .order_by_asc(messages::Column::Seq)
        .into_tuple::<String>()
        .one(db)
        .await
        .context("reading a session's first message")
}

#[cfg(test)]
mod tests;
