//! Feedback on answers (issue #14 item 3): a user's thumbs up or down on an assistant
//! message of their own session, with an optional comment and tags — one per (message,
//! user), given again to change it ([`give`] is an upsert), withdrawn with [`withdraw`].
//! [`of_messages`] reads a user's feedback on the messages a page shows, in one
//! statement however many there are.
//!
//! Only the session's owner gives feedback in it: another user's session (a teacher's
//! reading one included) answers as missing, as a deleted one does. A message that is not
//! an answer (a user's, a notice) is refused with 422 `not_an_answer`.
//!
//! What administrators read of it — the list, the figures, the export of rated
//! conversations — is [`report`] and [`export`].

pub mod export;
pub mod report;

use std::collections::HashMap;

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, JoinType, QueryFilter, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, OnConflict, Query},
};
use uuid::Uuid;

use super::sessions::get_owned;
use crate::{
    enums::{FeedbackRating, MessageRole},
    error::Context,
    message_feedback::{self, COMMENT_MAX_CHARS, FeedbackTags, MAX_TAGS, TAG_MAX_CHARS},
    messages, prompts, sessions, tools,
};

/// What a user says about an answer, normalized ([`Feedback::new`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Feedback {
    pub rating: FeedbackRating,
    pub comment: Option<String>,
    pub tags: Vec<String>,
}

impl Feedback {
    /// The comment trimmed (blank: none); the tags trimmed, blank and repeated ones left
    /// out (first spelling kept). Longer than the bounds ([`COMMENT_MAX_CHARS`],
    /// [`MAX_TAGS`] tags of [`TAG_MAX_CHARS`]): 422 `validation_failed`, as the API's
    /// schema says.
    pub fn new(rating: FeedbackRating, comment: Option<&str>, tags: &[&str]) -> Result<Self> {
        let comment = comment.map(str::trim).filter(|c| !c.is_empty());
        if comment.is_some_and(|c| c.chars().count() > COMMENT_MAX_CHARS) {
            return Err(Error::invalid(
                ErrorCode::ValidationFailed,
                format!("a comment has at most {COMMENT_MAX_CHARS} characters"),
            ));
        }
        let mut kept: Vec<String> = Vec::new();
        for tag in tags.iter().map(|t| t.trim()).filter(|t| !t.is_empty()) {
            if tag.chars().count() > TAG_MAX_CHARS {
                return Err(Error::invalid(
                    ErrorCode::ValidationFailed,
                    format!("a tag has at most {TAG_MAX_CHARS} characters"),
                ));
            }
            if !kept.iter().any(|k| k == tag) {
                kept.push(tag.to_owned());
            }
        }
        if kept.len() > MAX_TAGS {
            return Err(Error::invalid(
                ErrorCode::ValidationFailed,
                format!("at most {MAX_TAGS} tags"),
            ));
        }
        Ok(Self {
            rating,
            comment: comment.map(str::to_owned),
            tags: kept,
        })
    }
}

/// Feedback as it was recorded, with what the metrics label it by.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Given {
    pub feedback: message_feedback::Model,
    /// The rating before this call (`None`: the first feedback on the message).
    pub previous: Option<FeedbackRating>,
    /// The name of the session's chat tool.
    pub tool_name: String,
    /// The model that wrote the answer, when it is known.
    pub model: Option<String>,
}

impl Given {
    /// Whether this call gave a rating the message did not have from the user.
    pub fn rating_changed(&self) -> bool {
        self.previous != Some(self.feedback.rating)
    }
}

/// What [`give`] reads about the message before writing.
#[derive(Debug, FromQueryResult)]
struct Target {
    role: MessageRole,
    tool_name: String,
    model: Option<String>,
    previous: Option<FeedbackRating>,
}

/// Records `user_id`'s feedback on message `message_id` of their session `session_id`,
/// replacing what they said before (the row keeps its id and `created_at`). 404 for a
/// session that is not theirs (or deleted) and for a message of no session of theirs;
/// 422 `not_an_answer` for a message that is not the assistant's.
pub async fn give<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    session_id: Uuid,
    message_id: Uuid,
    feedback: Feedback,
    now: DateTimeUtc,
) -> Result<Given> {
    use message_feedback::Column as F;
    get_owned(db, user_id, session_id).await?;
    let target = target(db, user_id, session_id, message_id).await?;
    if target.role != MessageRole::Assistant {
        return Err(Error::invalid(
            ErrorCode::NotAnAnswer,
            "feedback is given on answers (assistant messages) only",
        ));
    }
    let row = message_feedback::ActiveModel {
        id: Set(Uuid::now_v7()),
        message_id: Set(message_id),
        session_id: Set(session_id),
        user_id: Set(user_id),
        rating: Set(feedback.rating),
        comment: Set(feedback.comment),
        tags: Set(FeedbackTags(feedback.tags)),
        created_at: Set(now),
        updated_at: Set(now),
    };
    let saved = message_feedback::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([F::MessageId, F::UserId])
                .update_columns([F::Rating, F::Comment, F::Tags, F::UpdatedAt])
                .to_owned(),
        )
        .exec_with_returning(db)
        .await
        .context("recording feedback on an answer")
        // The message went (its session was deleted) between the read and the write.
        .map_err(|err| match err {
            Error::Conflict {
                code: ErrorCode::StillReferenced,
                ..
            } => Error::not_found("message"),
            other => other,
        })?;
    Ok(Given {
        feedback: saved,
        previous: target.previous,
        tool_name: target.tool_name,
        model: target.model,
    })
}

/// The message with its session's tool, the model that answered and the user's current
/// rating, in one statement (404 `message` when the session has no such message).
async fn target<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    session_id: Uuid,
    message_id: Uuid,
) -> Result<Target> {
    use message_feedback::Column as F;
    let query = Query::select()
        .column((messages::Entity, messages::Column::Role))
        .expr_as(Expr::col((tools::Entity, tools::Column::Name)), "tool_name")
        .expr_as(
            Expr::col((prompts::Entity, prompts::Column::Model)),
            "model",
        )
        .expr_as(Expr::col((message_feedback::Entity, F::Rating)), "previous")
        .from(messages::Entity)
        .join(
            JoinType::InnerJoin,
            sessions::Entity,
            Expr::col((sessions::Entity, sessions::Column::Id))
                .equals((messages::Entity, messages::Column::SessionId)),
        )
        .join(
            JoinType::InnerJoin,
            tools::Entity,
            Expr::col((tools::Entity, tools::Column::Id))
                .equals((sessions::Entity, sessions::Column::ToolId)),
        )
        .join(
            JoinType::LeftJoin,
            prompts::Entity,
            Expr::col((prompts::Entity, prompts::Column::Id))
                .equals((messages::Entity, messages::Column::PromptId)),
        )
        .join(
            JoinType::LeftJoin,
            message_feedback::Entity,
            Expr::col((message_feedback::Entity, F::MessageId))
                .equals((messages::Entity, messages::Column::Id))
                .and(Expr::col((message_feedback::Entity, F::UserId)).eq(user_id)),
        )
        .and_where(Expr::col((messages::Entity, messages::Column::Id)).eq(message_id))
        .and_where(Expr::col((messages::Entity, messages::Column::SessionId)).eq(session_id))
        .to_owned();
    let backend = db.get_database_backend();
    Target::find_by_statement(backend.build(&query))
        .one(db)
        .await
        .context("reading the answer feedback is given on")?
        .ok_or(Error::not_found("message"))
}

/// Withdraws `user_id`'s feedback on message `message_id` of their session
/// `session_id`: 404 when the session is not theirs, or there is none.
pub async fn withdraw<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    session_id: Uuid,
    message_id: Uuid,
) -> Result<()> {
    use message_feedback::Column as F;
    get_owned(db, user_id, session_id).await?;
    let deleted = message_feedback::Entity::delete_many()
        .filter(F::MessageId.eq(message_id))
        .filter(F::SessionId.eq(session_id))
        .filter(F::UserId.eq(user_id))
        .exec(db)
        .await
        .context("withdrawing feedback")?;
    if deleted.rows_affected == 0 {
        return Err(Error::not_found("feedback"));
    }
    Ok(())
}

/// `user_id`'s feedback on each of `message_ids` that has some, by message: one
/// statement, however many messages.
pub async fn of_messages<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    message_ids: &[Uuid],
) -> Result<HashMap<Uuid, message_feedback::Model>> {
    use message_feedback::Column as F;
    if message_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows = message_feedback::Entity::find()
        .filter(F::UserId.eq(user_id))
        .filter(F::MessageId.is_in(message_ids.iter().copied()))
        .all(db)
        .await
        .context("reading feedback on messages")?;
    Ok(rows.into_iter().map(|f| (f.message_id, f)).collect())
}

#[cfg(test)]
mod tests;
