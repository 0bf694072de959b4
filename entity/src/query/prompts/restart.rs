//! The two ways a prompt that ended starts again or never starts: [`resume`] puts a
//! failed one back in line, [`abandon`] gives up one whose job could not be enqueued.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait},
};
use uuid::Uuid;

use super::{UNFINISHED, find, get, handover::hand_over};
use crate::{
    enums::{ErrorCode, PromptState},
    error::Context,
    prompts, sessions,
};

/// Puts a `failed` or `error` prompt back to `created` so its job can run again
/// (409 `not_resumable` otherwise). The session must not be running another prompt. Its
/// `seq_ceiling` goes up a block: the resume's event (appended above the ceiling less
/// one) and the next attempt's stay above the numbers a feed rebuilt before gave out.
pub async fn resume(db: &DatabaseConnection, id: Uuid, now: DateTimeUtc) -> Result<prompts::Model> {
    let txn = crate::query::begin_write(db, "starting a resume").await?;
    let prompt = get(&txn, id).await?;
    if !prompt.state.is_resumable() {
        return Err(Error::conflict(
            ErrorCode::NotResumable,
            "only failed or errored prompts can be resumed",
        ));
    }
    let session = sessions::Entity::find_by_id(prompt.session_id)
        .one(&txn)
        .await
        .context("reading the prompt's session")?
        .ok_or(Error::not_found("session"))?;
    if let Some(active) = session.active_prompt_id
        && active != prompt.id
        && find(&txn, active)
            .await?
            .is_some_and(|p| UNFINISHED.contains(&p.state))
    {
        return Err(Error::conflict(
            ErrorCode::PromptActive,
            "another prompt of this session is running",
        ));
    }
    let reset = prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::Created))
        .col_expr(
            prompts::Column::CompletedAt,
            Expr::value(Option::<DateTimeUtc>::None),
        )
        .col_expr(
            prompts::Column::ErrorCode,
            Expr::value(Option::<ErrorCode>::None),
        )
        .col_expr(prompts::Column::Error, Expr::value(Option::<String>::None))
        .col_expr(
            prompts::Column::SeqCeiling,
            Expr::col(prompts::Column::SeqCeiling).add(super::SEQ_BLOCK),
        )
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.is_in([PromptState::Failed, PromptState::Error]))
        .exec(&txn)
        .await
        .context("resetting a prompt for resume")?;
    if reset.rows_affected == 0 {
        return Err(Error::conflict(
            ErrorCode::NotResumable,
            "the prompt changed state meanwhile",
        ));
    }
    sessions::Entity::update_many()
        .col_expr(sessions::Column::ActivePromptId, Expr::value(prompt.id))
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
        .filter(sessions::Column::Id.eq(prompt.session_id))
        .exec(&txn)
        .await
        .context("making the resumed prompt active")?;
    let prompt = get(&txn, id).await?;
    txn.commit().await.context("committing a resume")?;
    Ok(prompt)
}

/// Gives up a prompt whose job could not be enqueued (the queue is down): it ends
/// `failed` with [`ErrorCode::Unavailable`] (resumable) and the session moves on.
/// Returns the next waiting prompt.
pub async fn abandon(db: &DatabaseConnection, id: Uuid, now: DateTimeUtc) -> Result<Option<Uuid>> {
    let txn = crate::query::begin_write(db, "starting to abandon a prompt").await?;
    let code = ErrorCode::Unavailable;
    prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::Failed))
        .col_expr(prompts::Column::CompletedAt, Expr::value(now))
        .col_expr(prompts::Column::ErrorCode, Expr::value(code))
        .col_expr(prompts::Column::Error, Expr::value(code.message()))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.eq(PromptState::Created))
        .exec(&txn)
        .await
        .context("abandoning a prompt")?;
    let prompt = get(&txn, id).await?;
    let next = hand_over(&txn, &prompt, now).await?;
    txn.commit()
        .await
        .context("committing an abandoned prompt")?;
    Ok(next)
}
