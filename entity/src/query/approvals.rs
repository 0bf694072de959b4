//! Function calls that wait for approval (#14): the call's row is the approval.
//!
//! A call of a function that needs approval starts like any other (`running`, by
//! [`tool_calls::start`](super::tool_calls::start)), then [waits](await_approval)
//! (`awaiting_approval` until `approval_expires_at`). When the model's response has
//! made its calls, the turn is [suspended](suspend): the prompt stays
//! `waiting_for_tools` with no lease owner and no lease expiry, so no claim takes it,
//! the reaper does not see it, and no worker, connection or lease is held meanwhile.
//!
//! A [decision](decide) — the owner's approval (with edited arguments or not) or
//! denial, or an expiry — is one transaction: the call's guarded `UPDATE` (only while it
//! waits: the first decision wins, a second is 409 `not_awaiting_approval`), then, when
//! no call of the prompt waits any more, the prompt made claimable (its lease expired
//! now), which the caller follows with a job. A denied call is finished then (`denied`,
//! the reason as its error: the model is told); an approved one is `approved` until the
//! resumed turn [runs it](start_approved). A cancel [wakes](wake) a suspended prompt so
//! its job can end it, and the claim that cancels it [cancels](cancel_waiting) its
//! calls: a denied, expired or cancelled call never runs.
//!
//! A call of one of the caller's own functions (#46) waits the same way, for its result
//! instead of a decision: [`await_result`] marks it `awaiting_client` (its wait's end in
//! `approval_expires_at`), the suspend counts it as waiting, and the caller's result (or
//! the expiry's failure) is [`answer`]ed in one transaction that wakes the prompt when no
//! call of it waits any more.

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, PaginatorTrait, QueryFilter,
    QueryOrder, QuerySelect, prelude::DateTimeUtc, sea_query::Expr,
};
use serde_json::{Value, json};
use uuid::Uuid;

use crate::{
    enums::{PromptState, ToolCallState},
    error::Context,
    prompts, tool_calls,
};

/// Marks a call the worker just recorded (`running`) as waiting for approval until
/// `expires_at`. A call already waiting (an earlier attempt marked it) keeps its
/// expiry. Returns the row as it is now.
pub async fn await_approval<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    expires_at: DateTimeUtc,
) -> Result<tool_calls::Model> {
    use tool_calls::Column as T;
    tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(ToolCallState::AwaitingApproval))
        .col_expr(T::ApprovalExpiresAt, Expr::value(expires_at))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::Running))
        .exec(db)
        .await
        .context("marking a call as waiting for approval")?;
    super::tool_calls::get(db, id).await
}

/// How a [`suspend`] went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Suspension {
    /// The prompt sleeps until the decision on its last waiting call wakes it.
    Asleep,
    /// Every call was decided before the worker let go (the owner was quick), or the
    /// turn was cancelled meanwhile: the prompt is claimable at once and needs a job.
    Decided,
    /// The worker no longer held the prompt (a cancel or a takeover came first).
    Lost,
}

/// Suspends a prompt whose calls wait for approval: it stays `waiting_for_tools` and
/// lets go of its lease (no owner, no expiry), while `worker` still holds it. One
/// transaction that also counts the calls still waiting: a decision committed before it
/// found the prompt still held and did not wake it, so when none waits any more the
/// prompt is made claimable here ([`Suspension::Decided`]); a decision after it wakes
/// the prompt itself (its `UPDATE` of the prompt waits for this one's commit).
pub async fn suspend(db: &DatabaseConnection, id: Uuid, worker: &str) -> Result<Suspension> {
    let txn = super::begin_write(db, "starting to suspend a prompt").await?;
    let suspended = prompts::Entity::update_many()
        .col_expr(
            prompts::Column::State,
            Expr::value(PromptState::WaitingForTools),
        )
        .col_expr(
            prompts::Column::LeaseOwner,
            Expr::value(Option::<String>::None),
        )
        .col_expr(
            prompts::Column::LeaseExpiresAt,
            Expr::value(Option::<DateTimeUtc>::None),
        )
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(
            prompts::Column::State.is_in([PromptState::InProgress, PromptState::WaitingForTools]),
        )
        .exec(&txn)
        .await
        .context("suspending a prompt for approval")?;
    if suspended.rows_affected != 1 {
        return Ok(Suspension::Lost);
    }
    let waiting = waiting_calls(&txn, id).await?;
    // A cancel recorded before this found the prompt still held: its job ends it.
    let cancelled = super::prompts::get(&txn, id)
        .await?
        .cancel_requested_at
        .is_some();
    let outcome = if (waiting == 0 || cancelled) && wake(&txn, id).await? {
        Suspension::Decided
    } else {
        Suspension::Asleep
    };
    txn.commit()
        .await
        .context("committing a suspended prompt")?;
    Ok(outcome)
}

/// The calls of prompt `id` that hold it suspended (waiting for approval or for their
/// caller's result).
async fn waiting_calls<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<u64> {
    use tool_calls::Column as T;
    tool_calls::Entity::find()
        .filter(T::PromptId.eq(id))
        .filter(T::State.is_in(WAITING))
        .count(db)
        .await
        .context("counting a prompt's waiting calls")
}

/// The states of a call that holds its turn suspended.
pub const WAITING: [ToolCallState; 2] = [
    ToolCallState::AwaitingApproval,
    ToolCallState::AwaitingClient,
];

/// Takes prompt `id`'s row first in a transaction that decides one of its waiting calls,
/// as the suspend does: a decision and a suspend of one prompt take turns, so the later
/// one sees what the earlier wrote (else each could count the other's call as waiting
/// and neither wake the prompt).
async fn lock_prompt<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    prompts::Entity::update_many()
        .col_expr(
            prompts::Column::SeqCeiling,
            Expr::col(prompts::Column::SeqCeiling),
        )
        .filter(prompts::Column::Id.eq(id))
        .exec(db)
        .await
        .context("locking a prompt for a decision on its call")?;
    Ok(())
}

/// Records a caller's answer (`state`, `result`, why it failed) on call `id` of prompt
/// `prompt_id` while it waits for it (`awaiting_client`), and makes the prompt claimable
/// when no call of it waits any more. 404 when the prompt has no such call; 409
/// `not_awaiting_result` when the call does not wait (answered, expired, cancelled).
pub async fn answer(
    db: &DatabaseConnection,
    prompt_id: Uuid,
    id: Uuid,
    answered: Answered,
    now: DateTimeUtc,
) -> Result<Decided> {
    use tool_calls::Column as T;
    let txn = super::begin_write(db, "starting to record a client call's result").await?;
    lock_prompt(&txn, prompt_id).await?;
    let call = tool_calls::Entity::find_by_id(id)
        .filter(T::PromptId.eq(prompt_id))
        .one(&txn)
        .await
        .context("reading a call to answer")?
        .ok_or(Error::not_found("tool call"))?;
    let waited_ms = call
        .started_at
        .map_or(0, |at| (now - at).num_milliseconds().max(0));
    let recorded = tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(answered.state))
        .col_expr(T::ToolResult, Expr::value(Some(answered.result)))
        .col_expr(T::ErrorMessage, Expr::value(answered.error))
        .col_expr(T::DecidedBy, Expr::value(answered.by))
        .col_expr(T::DecidedAt, Expr::value(Some(now)))
        .col_expr(T::CompletedAt, Expr::value(Some(now)))
        .col_expr(T::DurationMs, Expr::value(Some(waited_ms)))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::AwaitingClient))
        .exec(&txn)
        .await
        .context("recording a client call's result")?;
    if recorded.rows_affected == 0 {
        return Err(Error::conflict(
            ErrorCode::NotAwaitingResult,
            format!(
                "the call is not waiting for a result (it is {})",
                call.state
            ),
        ));
    }
    let resume = waiting_calls(&txn, prompt_id).await? == 0 && wake(&txn, prompt_id).await?;
    let call = super::tool_calls::get(&txn, id).await?;
    txn.commit()
        .await
        .context("committing a client call's result")?;
    Ok(Decided { call, resume })
}

/// A caller's answer to a call of its function, as its row records it.
#[derive(Debug, Clone, PartialEq)]
pub struct Answered {
    /// `success`, or `error` (the function failed, or no answer came in time).
    pub state: ToolCallState,
    /// What the model reads.
    pub result: Value,
    /// Why it failed.
    pub error: Option<String>,
    /// Who answered; none: the wait expired.
    pub by: Option<Uuid>,
}

/// Marks a call the worker just recorded (`running`) as waiting for its caller's result
/// until `expires_at`. A call already waiting keeps its expiry. Returns the row now.
pub async fn await_result<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    expires_at: DateTimeUtc,
) -> Result<tool_calls::Model> {
    use tool_calls::Column as T;
    tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(ToolCallState::AwaitingClient))
        .col_expr(T::ApprovalExpiresAt, Expr::value(expires_at))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::Running))
        .exec(db)
        .await
        .context("marking a call as waiting for its caller")?;
    super::tool_calls::get(db, id).await
}

/// Makes a suspended prompt claimable (its lease lapsed now): its next job's claim takes
/// it. True when it was suspended.
pub async fn wake<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<bool> {
    let woken = prompts::Entity::update_many()
        .col_expr(
            prompts::Column::LeaseExpiresAt,
            Expr::value(DateTimeUtc::UNIX_EPOCH),
        )
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.eq(PromptState::WaitingForTools))
        .filter(prompts::Column::LeaseOwner.is_null())
        .filter(prompts::Column::LeaseExpiresAt.is_null())
        .exec(db)
        .await
        .context("waking a suspended prompt")?;
    Ok(woken.rows_affected == 1)
}

/// What is decided about a waiting call.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    /// Run it — with these arguments instead of the model's, when given.
    Approve { input: Option<Value> },
    /// Do not run it; the model is told `reason`.
    Deny { reason: Option<String> },
    /// No one decided in time: denied.
    Expire,
}

impl Verdict {
    pub fn approved(&self) -> bool {
        matches!(self, Self::Approve { .. })
    }

    /// What the model reads as a denied call's result.
    fn denial(&self) -> Option<String> {
        match self {
            Self::Approve { .. } => None,
            Self::Deny {
                reason: Some(reason),
            } => Some(format!(
                "The user denied this call, so it was not run: {reason}"
            )),
            Self::Deny { reason: None } => {
                Some("The user denied this call, so it was not run.".to_owned())
            }
            Self::Expire => {
                Some("No one approved this call in time, so it was not run.".to_owned())
            }
        }
    }
}

/// A decision recorded.
#[derive(Debug, Clone)]
pub struct Decided {
    /// The call as it is now.
    pub call: tool_calls::Model,
    /// The prompt's last waiting call was decided: it is claimable now and needs a job.
    pub resume: bool,
}

/// Records `verdict` on waiting call `id` of prompt `prompt_id` by user `by` (none: an
/// expiry), and makes the prompt claimable when no call of it waits any more. 404 when
/// the prompt has no such call; 409 `not_awaiting_approval` when the call does not wait
/// (decided already, expired, cancelled).
pub async fn decide(
    db: &DatabaseConnection,
    prompt_id: Uuid,
    id: Uuid,
    verdict: Verdict,
    by: Option<Uuid>,
    now: DateTimeUtc,
) -> Result<Decided> {
    use tool_calls::Column as T;
    let txn = super::begin_write(db, "starting an approval decision").await?;
    lock_prompt(&txn, prompt_id).await?;
    let call = tool_calls::Entity::find_by_id(id)
        .filter(T::PromptId.eq(prompt_id))
        .one(&txn)
        .await
        .context("reading a call to decide")?
        .ok_or(Error::not_found("tool call"))?;
    let mut update = tool_calls::Entity::update_many()
        .col_expr(T::DecidedBy, Expr::value(by))
        .col_expr(T::DecidedAt, Expr::value(now));
    update = match (&verdict, verdict.denial()) {
        (Verdict::Approve { input }, _) => {
            update = update.col_expr(T::State, Expr::value(ToolCallState::Approved));
            match input {
                Some(input) if *input != call.tool_args => update
                    .col_expr(T::ToolArgs, Expr::value(input.clone()))
                    .col_expr(T::RequestedArgs, Expr::value(Some(call.tool_args.clone()))),
                _ => update,
            }
        }
        (verdict, Some(denial)) => update
            .col_expr(T::State, Expr::value(ToolCallState::Denied))
            .col_expr(
                T::DecisionReason,
                Expr::value(match verdict {
                    Verdict::Deny { reason } => reason.clone(),
                    _ => Some("expired".to_owned()),
                }),
            )
            .col_expr(T::ToolResult, Expr::value(Some(json!({ "error": denial }))))
            .col_expr(T::ErrorMessage, Expr::value(Some(denial)))
            .col_expr(T::CompletedAt, Expr::value(Some(now)))
            .col_expr(T::DurationMs, Expr::value(Some(0i64))),
        (_, None) => unreachable!("only an approval has no denial"),
    };
    let decided = update
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::AwaitingApproval))
        .exec(&txn)
        .await
        .context("recording an approval decision")?;
    if decided.rows_affected == 0 {
        return Err(Error::conflict(
            ErrorCode::NotAwaitingApproval,
            format!(
                "the call is not waiting for approval (it is {})",
                call.state
            ),
        ));
    }
    let resume = waiting_calls(&txn, prompt_id).await? == 0 && wake(&txn, prompt_id).await?;
    let call = super::tool_calls::get(&txn, id).await?;
    txn.commit()
        .await
        .context("committing an approval decision")?;
    Ok(Decided { call, resume })
}

/// Starts an approved call as its resumed turn runs it (`approved` → `running`). False
/// when it is not approved (an earlier attempt started it already).
pub async fn start_approved<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    now: DateTimeUtc,
) -> Result<bool> {
    use tool_calls::Column as T;
    let started = tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(ToolCallState::Running))
        .col_expr(T::StartedAt, Expr::value(Some(now)))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::Approved))
        .exec(db)
        .await
        .context("starting an approved call")?;
    Ok(started.rows_affected == 1)
}

/// A waiting call's expiry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Expiry {
    pub prompt_id: Uuid,
    pub call_id: Uuid,
    pub expires_at: DateTimeUtc,
    /// What the call waits for (`awaiting_approval`, `awaiting_client`).
    pub state: ToolCallState,
}

/// Waiting calls (for approval or their caller's result) whose wait ends by `horizon`,
/// earliest first (one read over the two partial indexes: the expiry pass ends those due
/// and sleeps until the next).
pub async fn due<C: ConnectionTrait>(
    db: &C,
    horizon: DateTimeUtc,
    limit: u64,
) -> Result<Vec<Expiry>> {
    use tool_calls::Column as T;
    let rows: Vec<(Uuid, Uuid, Option<DateTimeUtc>, ToolCallState)> = tool_calls::Entity::find()
        .select_only()
        .columns([T::PromptId, T::Id, T::ApprovalExpiresAt, T::State])
        .filter(T::State.is_in(WAITING))
        .filter(T::ApprovalExpiresAt.lte(horizon))
        .order_by_asc(T::ApprovalExpiresAt)
        .limit(limit)
        .into_tuple()
        .all(db)
        .await
        .context("finding approvals that expire")?;
    Ok(rows
        .into_iter()
        .filter_map(|(prompt_id, call_id, at, state)| {
            at.map(|expires_at| Expiry {
                prompt_id,
                call_id,
                expires_at,
                state,
            })
        })
        .collect())
}

/// Cancels the calls of a cancelled prompt that wait for approval, were approved and
/// not run, or wait for their caller's result: they never run (a result posted later is
/// 409). Returns how many.
pub async fn cancel_waiting<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    now: DateTimeUtc,
) -> Result<u64> {
    use tool_calls::Column as T;
    let canceled = tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(ToolCallState::Canceled))
        .col_expr(
            T::ToolResult,
            Expr::value(Some(
                json!({ "error": "the turn was cancelled before the call ran" }),
            )),
        )
        .col_expr(T::DecidedAt, Expr::value(Some(now)))
        .col_expr(T::CompletedAt, Expr::value(Some(now)))
        .col_expr(T::DurationMs, Expr::value(Some(0i64)))
        .filter(T::PromptId.eq(prompt_id))
        .filter(T::State.is_in([
            ToolCallState::AwaitingApproval,
            ToolCallState::Approved,
            ToolCallState::AwaitingClient,
        ]))
        .exec(db)
        .await
        .context("cancelling calls that wait for approval")?;
    Ok(canceled.rows_affected)
}

/// The calls waiting for `user`'s approval, across their sessions, oldest first.
pub async fn waiting_for<C: ConnectionTrait>(db: &C, user: Uuid) -> Result<Vec<tool_calls::Model>> {
    use sea_orm::{JoinType, RelationTrait};
    use tool_calls::Column as T;
    tool_calls::Entity::find()
        .join(JoinType::InnerJoin, tool_calls::Relation::Session.def())
        .filter(crate::sessions::Column::UserId.eq(user))
        .filter(T::State.eq(ToolCallState::AwaitingApproval))
        .order_by_asc(T::CreatedAt)
        .order_by_asc(T::Id)
        .all(db)
        .await
        .context("listing calls waiting for approval")
}

#[cfg(test)]
mod tests;
