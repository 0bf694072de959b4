//! The prompt (one generation) and its state machine (DESIGN §4).
//!
//! Every transition is a guarded `UPDATE … WHERE state IN (…)`, so two workers can never
//! both own a prompt: a worker *claims* a prompt (`created` → `in_progress`) together with
//! a lease it renews while it runs; a job redelivered after its worker died may claim the
//! prompt again once that lease has lapsed. A cancel is durable before it is a signal:
//! `cancel_requested_at` is written first, and a claim honours it.
//!
//! One prompt per session runs at a time. The session's `active_prompt_id` names it;
//! prompts accepted while another is active wait in `created` (policy `enqueue`, or
//! `interrupt` after cancelling the active one) and are started in order by
//! [`finish`], which hands the session to the next waiting prompt.

use chrono::Duration;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    QueryOrder, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait},
};
use serde_json::json;
use uuid::Uuid;

use crate::{
    enums::{PromptState, SessionState},
    error::{Context, Error, Result},
    prompts, sessions,
};

/// States in which a prompt still has work ahead.
pub const UNFINISHED: [PromptState; 3] = [
    PromptState::Created,
    PromptState::InProgress,
    PromptState::WaitingForTools,
];

/// What to do with a new message while another prompt of the session is active.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum OnActive {
    /// Refuse with 409.
    #[default]
    Reject,
    /// Cancel the active prompt, then run this one.
    Interrupt,
    /// Run this one after the active one.
    Enqueue,
}

/// A message the user sent, to be answered.
#[derive(Debug, Clone)]
pub struct NewTurn {
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub content: String,
    pub model: String,
    pub idempotency_key: Option<String>,
    pub on_active: OnActive,
}

/// The outcome of [`create_turn`].
#[derive(Debug, Clone)]
pub struct Turn {
    pub prompt: prompts::Model,
    /// The prompt already existed for this idempotency key; nothing new was recorded.
    pub replayed: bool,
    /// The prompt owns the session now: enqueue its job. Otherwise it waits its turn.
    pub run_now: bool,
    /// The prompt whose cancel this turn requested (`interrupt`).
    pub interrupted: Option<Uuid>,
}

/// Records a prompt for a new user message, applying the session's active-prompt policy.
pub async fn create_turn(db: &DatabaseConnection, turn: NewTurn, now: DateTimeUtc) -> Result<Turn> {
    let txn = super::begin_write(db, "starting a turn").await?;
    let session = super::sessions::get_owned(&txn, turn.user_id, turn.session_id).await?;
    if session.state != SessionState::Active {
        return Err(Error::conflict(
            "session_completed",
            "the session is completed",
        ));
    }
    if let Some(key) = &turn.idempotency_key
        && let Some(prompt) = prompts::Entity::find()
            .filter(prompts::Column::SessionId.eq(session.id))
            .filter(prompts::Column::IdempotencyKey.eq(key.as_str()))
            .one(&txn)
            .await
            .context("looking up an idempotency key")?
    {
        return Ok(Turn {
            prompt,
            replayed: true,
            run_now: false,
            interrupted: None,
        });
    }
    let active = match session.active_prompt_id {
        Some(id) => find(&txn, id)
            .await?
            .filter(|p| UNFINISHED.contains(&p.state)),
        None => None,
    };
    let mut interrupted = None;
    if let Some(active) = &active {
        match turn.on_active {
            OnActive::Reject => {
                return Err(Error::conflict(
                    "prompt_active",
                    format!(
                        "prompt {} of this session is still running; wait, cancel it, or send with on_active=interrupt|enqueue",
                        active.id
                    ),
                ));
            }
            OnActive::Interrupt => {
                mark_cancel_requested(&txn, active.id, now).await?;
                interrupted = Some(active.id);
            }
            OnActive::Enqueue => {}
        }
    }
    let prompt = prompts::ActiveModel {
        id: Set(Uuid::now_v7()),
        session_id: Set(session.id),
        state: Set(PromptState::Created),
        attempt: Set(0),
        model: Set(Some(turn.model)),
        idempotency_key: Set(turn.idempotency_key),
        input: Set(Some(json!({"content": turn.content}))),
        created_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await
    .context("recording a prompt")?;
    let run_now = active.is_none();
    if run_now {
        let taken = sessions::Entity::update_many()
            .col_expr(sessions::Column::ActivePromptId, Expr::value(prompt.id))
            .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
            .filter(sessions::Column::Id.eq(session.id))
            .filter(match session.active_prompt_id {
                Some(previous) => sessions::Column::ActivePromptId.eq(previous),
                None => sessions::Column::ActivePromptId.is_null(),
            })
            .exec(&txn)
            .await
            .context("making the prompt the session's active one")?;
        if taken.rows_affected == 0 {
            return Err(Error::conflict(
                "prompt_active",
                "another message of this session was accepted at the same moment",
            ));
        }
    }
    txn.commit().await.context("committing a turn")?;
    Ok(Turn {
        prompt,
        replayed: false,
        run_now,
        interrupted,
    })
}

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<prompts::Model>> {
    prompts::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a prompt")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<prompts::Model> {
    find(db, id).await?.ok_or(Error::not_found("prompt"))
}

/// A prompt of one of this user's sessions (another user's answers as missing).
pub async fn get_owned<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    id: Uuid,
) -> Result<prompts::Model> {
    let prompt = get(db, id).await?;
    super::sessions::get_owned(db, user_id, prompt.session_id)
        .await
        .map_err(|_| Error::not_found("prompt"))?;
    Ok(prompt)
}

async fn mark_cancel_requested<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    now: DateTimeUtc,
) -> Result<()> {
    prompts::Entity::update_many()
        .col_expr(prompts::Column::CancelRequestedAt, Expr::value(now))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .filter(prompts::Column::CancelRequestedAt.is_null())
        .exec(db)
        .await
        .context("recording a cancel request")?;
    Ok(())
}

/// Records a cancel on an unfinished prompt (durable first; the caller then signals it).
/// Returns the prompt as it is now; a finished prompt answers 409 `prompt_finished`.
pub async fn request_cancel<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    now: DateTimeUtc,
) -> Result<prompts::Model> {
    mark_cancel_requested(db, id, now).await?;
    let prompt = get(db, id).await?;
    if !UNFINISHED.contains(&prompt.state) && prompt.state != PromptState::Canceled {
        return Err(Error::conflict(
            "prompt_finished",
            "the prompt has already finished",
        ));
    }
    Ok(prompt)
}

/// The outcome of a worker's [`claim`].
#[derive(Debug, Clone)]
pub enum Claim {
    /// The worker owns the prompt now (`in_progress`, attempt incremented).
    Claimed(prompts::Model),
    /// A cancel was recorded before any worker ran it: the prompt is `canceled` now.
    Canceled(prompts::Model),
    /// Nothing to do: the prompt finished already (a repeated job).
    Finished(prompts::Model),
    /// Another worker holds a live lease on it.
    Busy,
}

/// Claims a prompt for `worker` until `now + lease`.
pub async fn claim(
    db: &DatabaseConnection,
    id: Uuid,
    worker: &str,
    lease: Duration,
    now: DateTimeUtc,
) -> Result<Claim> {
    let prompt = get(db, id).await?;
    if !UNFINISHED.contains(&prompt.state) {
        return Ok(Claim::Finished(prompt));
    }
    if prompt.cancel_requested_at.is_some() {
        let canceled = prompts::Entity::update_many()
            .col_expr(prompts::Column::State, Expr::value(PromptState::Canceled))
            .col_expr(prompts::Column::CompletedAt, Expr::value(now))
            .filter(prompts::Column::Id.eq(id))
            .filter(prompts::Column::State.is_in(UNFINISHED))
            .filter(
                sea_orm::Condition::any()
                    .add(prompts::Column::State.eq(PromptState::Created))
                    .add(prompts::Column::LeaseExpiresAt.lt(now))
                    .add(prompts::Column::LeaseOwner.eq(worker)),
            )
            .exec(db)
            .await
            .context("cancelling a prompt at claim time")?;
        let prompt = get(db, id).await?;
        return Ok(if canceled.rows_affected == 1 {
            Claim::Canceled(prompt)
        } else {
            Claim::Busy
        });
    }
    let claimed = prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::InProgress))
        .col_expr(
            prompts::Column::Attempt,
            Expr::col(prompts::Column::Attempt).add(1),
        )
        .col_expr(prompts::Column::StartedAt, Expr::value(now))
        .col_expr(prompts::Column::LeaseOwner, Expr::value(worker))
        .col_expr(prompts::Column::LeaseExpiresAt, Expr::value(now + lease))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::CancelRequestedAt.is_null())
        .filter(
            sea_orm::Condition::any()
                .add(prompts::Column::State.eq(PromptState::Created))
                .add(
                    sea_orm::Condition::all()
                        .add(
                            prompts::Column::State
                                .is_in([PromptState::InProgress, PromptState::WaitingForTools]),
                        )
                        .add(prompts::Column::LeaseExpiresAt.lt(now)),
                ),
        )
        .exec(db)
        .await
        .context("claiming a prompt")?;
    let prompt = get(db, id).await?;
    Ok(if claimed.rows_affected == 1 {
        Claim::Claimed(prompt)
    } else if !UNFINISHED.contains(&prompt.state) {
        Claim::Finished(prompt)
    } else {
        Claim::Busy
    })
}

/// Extends the worker's lease. False when the worker lost the prompt (its lease lapsed
/// and another worker claimed it, or the prompt finished): the worker must stop.
pub async fn renew_lease<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    worker: &str,
    until: DateTimeUtc,
) -> Result<bool> {
    let renewed = prompts::Entity::update_many()
        .col_expr(prompts::Column::LeaseExpiresAt, Expr::value(until))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .exec(db)
        .await
        .context("renewing a prompt lease")?;
    Ok(renewed.rows_affected == 1)
}

/// Whether a cancel was recorded for the prompt.
pub async fn cancel_requested<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<bool> {
    Ok(get(db, id).await?.cancel_requested_at.is_some())
}

/// How a turn ended, as the worker records it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub state: PromptState,
    pub assistant_message_id: Option<Uuid>,
    pub user_message_id: Option<Uuid>,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub system_message: Option<String>,
    pub error_code: Option<String>,
    pub error: Option<String>,
}

/// Ends the worker's attempt with `outcome.state` (terminal for the job: `completed`,
/// `error`, `failed` or `canceled`; the last three can be resumed later) and hands the
/// session to its next waiting prompt. Returns that prompt's id, whose job the caller
/// enqueues; `Err(Conflict "lease_lost")` when the worker no longer owns the prompt.
pub async fn finish(
    db: &DatabaseConnection,
    id: Uuid,
    worker: &str,
    outcome: Outcome,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let txn = super::begin_write(db, "starting to finish a prompt").await?;
    let mut update = prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(outcome.state))
        .col_expr(prompts::Column::CompletedAt, Expr::value(now))
        .col_expr(
            prompts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            prompts::Column::LeaseExpiresAt,
            Expr::value(Option::<DateTimeUtc>::None),
        )
        .col_expr(prompts::Column::ErrorCode, Expr::value(outcome.error_code))
        .col_expr(prompts::Column::Error, Expr::value(outcome.error));
    if let Some(message) = outcome.assistant_message_id {
        update = update.col_expr(prompts::Column::AssistantMessageId, Expr::value(message));
    }
    if let Some(message) = outcome.user_message_id {
        update = update.col_expr(prompts::Column::UserMessageId, Expr::value(message));
    }
    if let Some(model) = outcome.model {
        update = update.col_expr(prompts::Column::Model, Expr::value(model));
    }
    if let Some(vendor) = outcome.vendor {
        update = update.col_expr(prompts::Column::Vendor, Expr::value(vendor));
    }
    if let Some(system) = outcome.system_message {
        update = update.col_expr(prompts::Column::SystemMessage, Expr::value(system));
    }
    let done = update
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .exec(&txn)
        .await
        .context("finishing a prompt")?;
    if done.rows_affected == 0 {
        return Err(Error::conflict(
            "lease_lost",
            "the worker no longer owns this prompt",
        ));
    }
    let prompt = get(&txn, id).await?;
    let next = hand_over(&txn, &prompt, now).await?;
    txn.commit().await.context("committing a finished prompt")?;
    Ok(next)
}

/// Ends a prompt that no worker owns (cancelled before it ran) and hands the session on.
pub async fn hand_over_after_cancel(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let txn = super::begin_write(db, "starting a hand-over").await?;
    let next = hand_over(&txn, prompt, now).await?;
    txn.commit().await.context("committing a hand-over")?;
    Ok(next)
}

/// Gives the session to its oldest waiting prompt (or none) if `prompt` held it.
async fn hand_over<C: ConnectionTrait>(
    db: &C,
    prompt: &prompts::Model,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let next = prompts::Entity::find()
        .filter(prompts::Column::SessionId.eq(prompt.session_id))
        .filter(prompts::Column::State.eq(PromptState::Created))
        .filter(prompts::Column::Id.ne(prompt.id))
        .order_by_asc(prompts::Column::Id)
        .one(db)
        .await
        .context("finding the next waiting prompt")?;
    let next_id = next.as_ref().map(|p| p.id);
    let handed = sessions::Entity::update_many()
        .col_expr(sessions::Column::ActivePromptId, Expr::value(next_id))
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
        .filter(sessions::Column::Id.eq(prompt.session_id))
        .filter(sessions::Column::ActivePromptId.eq(prompt.id))
        .exec(db)
        .await
        .context("handing the session to the next prompt")?;
    Ok(if handed.rows_affected == 1 {
        next_id
    } else {
        None
    })
}

/// Puts a `failed` or `error` prompt back to `created` so its job can run again
/// (409 `not_resumable` otherwise). The session must not be running another prompt.
pub async fn resume(db: &DatabaseConnection, id: Uuid, now: DateTimeUtc) -> Result<prompts::Model> {
    let txn = super::begin_write(db, "starting a resume").await?;
    let prompt = get(&txn, id).await?;
    if !matches!(prompt.state, PromptState::Failed | PromptState::Error) {
        return Err(Error::conflict(
            "not_resumable",
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
            "prompt_active",
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
            Expr::value(Option::<String>::None),
        )
        .col_expr(prompts::Column::Error, Expr::value(Option::<String>::None))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.is_in([PromptState::Failed, PromptState::Error]))
        .exec(&txn)
        .await
        .context("resetting a prompt for resume")?;
    if reset.rows_affected == 0 {
        return Err(Error::conflict(
            "not_resumable",
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

/// Records the user message a turn saved (so a repeated turn reuses it).
pub async fn set_user_message<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    message_id: Uuid,
) -> Result<()> {
    prompts::Entity::update_many()
        .col_expr(prompts::Column::UserMessageId, Expr::value(message_id))
        .filter(prompts::Column::Id.eq(id))
        .exec(db)
        .await
        .context("recording the prompt's user message")?;
    Ok(())
}

/// Gives up a prompt whose job could not be enqueued (the queue is down): it ends
/// `failed` (resumable) and the session moves on. Returns the next waiting prompt.
pub async fn abandon(
    db: &DatabaseConnection,
    id: Uuid,
    reason: &str,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let txn = super::begin_write(db, "starting to abandon a prompt").await?;
    prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::Failed))
        .col_expr(prompts::Column::CompletedAt, Expr::value(now))
        .col_expr(prompts::Column::ErrorCode, Expr::value("unavailable"))
        .col_expr(prompts::Column::Error, Expr::value(reason))
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

/// Prompts that should be running but may have no job: their session's active prompt
/// still `created` after `grace`, or `in_progress` with a lapsed lease. Re-enqueueing
/// them is safe (a claim is guarded; a finished prompt's job does nothing).
pub async fn stranded<C: ConnectionTrait>(
    db: &C,
    now: DateTimeUtc,
    grace: Duration,
    limit: u64,
) -> Result<Vec<Uuid>> {
    use sea_orm::{JoinType, QuerySelect, RelationTrait};
    let waiting = sea_orm::Condition::all()
        .add(prompts::Column::State.eq(PromptState::Created))
        .add(prompts::Column::CreatedAt.lt(now - grace));
    let lapsed = sea_orm::Condition::all()
        .add(prompts::Column::State.is_in([PromptState::InProgress, PromptState::WaitingForTools]))
        .add(prompts::Column::LeaseExpiresAt.lt(now));
    let ids: Vec<Uuid> = prompts::Entity::find()
        .select_only()
        .column(prompts::Column::Id)
        .join(JoinType::InnerJoin, prompts::Relation::Session.def())
        .filter(
            Expr::col((sessions::Entity, sessions::Column::ActivePromptId))
                .equals((prompts::Entity, prompts::Column::Id)),
        )
        .filter(sea_orm::Condition::any().add(waiting).add(lapsed))
        .order_by_asc(prompts::Column::Id)
        .limit(limit)
        .into_tuple()
        .all(db)
        .await
        .context("finding stranded prompts")?;
    Ok(ids)
}
