//! Who runs a prompt: the claim with its renewable lease, cancel requests (durable
//! before they are signalled), and the prompts that lost their job.

use chrono::Duration;
use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, EntityTrait, FromQueryResult,
    QueryFilter, QueryOrder, QueryTrait, UpdateMany,
    prelude::DateTimeUtc,
    sea_query::{Asterisk, Expr, ExprTrait, Query},
};
use uuid::Uuid;

use super::{UNFINISHED, get};
use crate::{enums::PromptState, error::Context, prompts, sessions};

pub(super) async fn mark_cancel_requested<C: ConnectionTrait>(
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
            ErrorCode::PromptFinished,
            "the prompt has already finished",
        ));
    }
    Ok(prompt)
}

/// How far each attempt's claim raises the prompt's `seq_ceiling` (and a resume, so a
/// rebuilt feed's numbers, just above the old ceiling, stay below the new events'): a
/// block no attempt's events fill in practice; one that does raises the ceiling again
/// ([`raise_seq_ceiling`]) before it passes it.
pub const SEQ_BLOCK: i64 = 1 << 20;

/// Raises the prompt's `seq_ceiling` to `to` unless it is there already. Unguarded:
/// raising a bound never misleads a reader.
pub async fn raise_seq_ceiling<C: ConnectionTrait>(db: &C, id: Uuid, to: i64) -> Result<()> {
    prompts::Entity::update_many()
        .col_expr(prompts::Column::SeqCeiling, Expr::value(to))
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::SeqCeiling.lt(to))
        .exec(db)
        .await
        .context("raising a prompt's seq ceiling")?;
    Ok(())
}

/// The outcome of a worker's [`claim`].
#[derive(Debug, Clone)]
pub enum Claim {
    /// The worker owns the prompt now (`in_progress`, attempt incremented, its
    /// `seq_ceiling` raised by [`SEQ_BLOCK`] for this attempt's events); with where its
    /// session stood as the claim found it.
    Claimed(prompts::Model, SessionAt),
    /// A cancel was recorded before any worker ran it: the prompt is `canceled` now, its
    /// `seq_ceiling` raised by [`CANCEL_EVENTS`] for the events that tell it.
    Canceled(prompts::Model),
    /// Nothing to do: the prompt finished already (a repeated job).
    Finished(prompts::Model),
    /// Another worker holds a live lease on it.
    Busy,
}

/// Claims a prompt for `worker` until `now + lease`: one guarded `UPDATE … RETURNING`
/// on the way every job takes; the prompt is read only when the claim did not take.
pub async fn claim(
    db: &DatabaseConnection,
    id: Uuid,
    worker: &str,
    lease: Duration,
    now: DateTimeUtc,
) -> Result<Claim> {
    let worker = worker.to_owned();
    crate::query::on_writer(
        db,
        crate::query::Urgency::FirstToken,
        move |db| async move { write_claim(&db, id, &worker, lease, now).await },
    )
    .await
}

/// Where a claimed prompt's session stood when the claim took it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionAt {
    /// Its message counter (`sessions.message_count`, which every append of a message
    /// raises).
    pub count: i32,
    /// Its active leaf: the message a new user message follows (none before the first).
    pub leaf: Option<Uuid>,
    /// Its owner's effective permissions as the claim read them (the turn's functions
    /// run with them); `None` when they were not read.
    pub owner_permissions: Option<Vec<String>>,
}

/// The claimed prompt's session's message counter and active leaf, as `RETURNING`
/// columns.
const SESSION_COUNT: &str = r#"(SELECT "message_count" FROM "sessions" WHERE "sessions"."id" = "prompts"."session_id") AS "session_message_count""#;
const SESSION_LEAF: &str = r#"(SELECT "active_leaf_id" FROM "sessions" WHERE "sessions"."id" = "prompts"."session_id") AS "session_active_leaf_id""#;
/// The session's owner's role and stored permission entries, as text: the turn's
/// functions need them, and the claim saves the turn a read.
const OWNER_ROLE: &str = r#"(SELECT CAST("role" AS TEXT) FROM "users" WHERE "users"."id" = (SELECT "user_id" FROM "sessions" WHERE "sessions"."id" = "prompts"."session_id")) AS "owner_role""#;
const OWNER_PERMISSIONS: &str = r#"(SELECT CAST("permissions" AS TEXT) FROM "users" WHERE "users"."id" = (SELECT "user_id" FROM "sessions" WHERE "sessions"."id" = "prompts"."session_id")) AS "owner_permissions""#;

async fn write_claim(
    db: &DatabaseConnection,
    id: Uuid,
    worker: &str,
    lease: Duration,
    now: DateTimeUtc,
) -> Result<Claim> {
    let mut update = prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::InProgress))
        .col_expr(
            prompts::Column::Attempt,
            Expr::col(prompts::Column::Attempt).add(1),
        )
        .col_expr(prompts::Column::StartedAt, Expr::value(now))
        .col_expr(prompts::Column::LeaseOwner, Expr::value(worker))
        .col_expr(prompts::Column::LeaseExpiresAt, Expr::value(now + lease))
        .col_expr(
            prompts::Column::SeqCeiling,
            Expr::col(prompts::Column::SeqCeiling).add(SEQ_BLOCK),
        )
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
        .into_query();
    // The session's counter comes back with the prompt: the worker's history cache
    // (`parley_worker::history`) is valid only at the counter it was taken at.
    update.returning(Query::returning().exprs([
        Expr::col(Asterisk),
        Expr::cust(SESSION_COUNT),
        Expr::cust(SESSION_LEAF),
        Expr::cust(OWNER_ROLE),
        Expr::cust(OWNER_PERMISSIONS),
    ]));
    let backend = db.get_database_backend();
    let claimed = db
        .query_one_raw(backend.build(&update))
        .await
        .context("claiming a prompt")?;
    if let Some(row) = claimed {
        let prompt = prompts::Model::from_query_result(&row, "").context("reading a claim")?;
        let at = SessionAt {
            count: row
                .try_get("", "session_message_count")
                .context("reading a claim")?,
            leaf: row
                .try_get("", "session_active_leaf_id")
                .context("reading a claim")?,
            owner_permissions: owner_permissions(&row),
        };
        return Ok(Claim::Claimed(prompt, at));
    }
    let prompt = get(db, id).await?;
    Ok(if !UNFINISHED.contains(&prompt.state) {
        Claim::Finished(prompt)
    } else if prompt.cancel_requested_at.is_some() {
        cancel_at_claim(db, id, worker, now).await?
    } else {
        Claim::Busy
    })
}

/// The owner's effective permissions from a claim's row (`None` when they do not read:
/// the turn reads the user then).
fn owner_permissions(row: &sea_orm::QueryResult) -> Option<Vec<String>> {
    let role: Option<String> = row.try_get("", "owner_role").ok()?;
    let entries: Option<String> = row.try_get("", "owner_permissions").ok()?;
    crate::query::users::effective_permissions_of(&role?, &entries?)
}

/// The events that tell a cancel at claim time: the `prompt_state` and `cancelled`.
pub const CANCEL_EVENTS: i64 = 2;

/// A cancel was recorded before this worker could run the prompt (or while it was
/// suspended for approval, and woken for the cancel): end it `canceled` unless another
/// worker holds a live lease; its calls that wait for approval end `canceled` too.
async fn cancel_at_claim(
    db: &DatabaseConnection,
    id: Uuid,
    worker: &str,
    now: DateTimeUtc,
) -> Result<Claim> {
    let canceled = prompts::Entity::update_many()
        .col_expr(prompts::Column::State, Expr::value(PromptState::Canceled))
        .col_expr(prompts::Column::CompletedAt, Expr::value(now))
        .col_expr(
            prompts::Column::SeqCeiling,
            Expr::col(prompts::Column::SeqCeiling).add(CANCEL_EVENTS),
        )
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .filter(
            sea_orm::Condition::any()
                .add(prompts::Column::State.eq(PromptState::Created))
                .add(prompts::Column::LeaseExpiresAt.lt(now))
                .add(prompts::Column::LeaseOwner.eq(worker)),
        )
        .exec_with_returning(db)
        .await
        .context("cancelling a prompt at claim time")?;
    Ok(match canceled.into_iter().next() {
        Some(prompt) => {
            // Calls that waited for approval (the prompt was suspended) never run.
            crate::query::approvals::cancel_waiting(db, id, now).await?;
            Claim::Canceled(prompt)
        }
        None => Claim::Busy,
    })
}

/// What a renewal of a worker's lease found.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LeaseState {
    /// The worker still holds the prompt; whether a cancel is recorded on it.
    Held { cancelled: bool },
    /// The worker lost the prompt (its lease lapsed and another worker claimed it, or
    /// the prompt finished): it must stop.
    Lost,
}

/// A renewal of `worker`'s lease until `until`, as a checkpoint's statement carries it,
/// with the running state the prompt is in from then on (`in_progress` while the model
/// streams, `waiting_for_tools` before functions run), when the checkpoint sets it.
#[derive(Debug, Clone, Copy)]
pub struct LeaseRenewal<'a> {
    pub worker: &'a str,
    pub until: DateTimeUtc,
    pub state: Option<PromptState>,
}

impl LeaseRenewal<'_> {
    /// `until` as the database keeps it (microseconds), so that the renewed row reads
    /// back equal to it.
    pub(super) fn until(&self) -> DateTimeUtc {
        chrono::SubsecRound::trunc_subsecs(self.until, 6)
    }

    /// The lease column's new value: `until` when the worker holds the prompt and it is
    /// unfinished, else what it was.
    pub(super) fn expires_at(&self) -> Expr {
        self.when_held(Expr::value(self.until()), prompts::Column::LeaseExpiresAt)
    }

    /// The state column's new value, when the renewal sets one: [`Self::state`] when the
    /// worker holds the prompt, else what it was.
    pub(super) fn state_value(&self) -> Option<Expr> {
        let state = self.state?;
        Some(self.when_held(Expr::value(state), prompts::Column::State))
    }

    /// `value` while the worker holds the prompt and it is unfinished, else `column`.
    fn when_held(&self, value: Expr, column: prompts::Column) -> Expr {
        Expr::case(
            Condition::all()
                .add(prompts::Column::LeaseOwner.eq(self.worker))
                .add(prompts::Column::State.is_in(UNFINISHED)),
            value,
        )
        .finally(Expr::col((prompts::Entity, column)))
        .into()
    }

    /// What the renewed row's `lease_expires_at` and `cancel_requested_at` say.
    pub(super) fn state(
        &self,
        expires_at: Option<DateTimeUtc>,
        cancel_requested_at: Option<DateTimeUtc>,
    ) -> LeaseState {
        if expires_at == Some(self.until()) {
            LeaseState::Held {
                cancelled: cancel_requested_at.is_some(),
            }
        } else {
            LeaseState::Lost
        }
    }
}

/// Extends the worker's lease and reads the cancel mark, in one statement.
pub async fn renew_lease<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    worker: &str,
    until: DateTimeUtc,
) -> Result<LeaseState> {
    let renewal = LeaseRenewal {
        worker,
        until,
        state: None,
    };
    let mut renew = prompts::Entity::update_many()
        .col_expr(
            prompts::Column::LeaseExpiresAt,
            Expr::value(renewal.until()),
        )
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .into_query();
    renew.returning_col(prompts::Column::CancelRequestedAt);
    let statement = db.get_database_backend().build(&renew);
    let row = db
        .query_one_raw(statement)
        .await
        .context("renewing a prompt lease")?;
    Ok(match row {
        None => LeaseState::Lost,
        Some(row) => {
            let cancel: Option<DateTimeUtc> = row
                .try_get("", "cancel_requested_at")
                .context("reading a renewed lease")?;
            LeaseState::Held {
                cancelled: cancel.is_some(),
            }
        }
    })
}

/// Lets go of a prompt this worker holds without finishing it (a shutdown's drain
/// deadline): its lease ends now, so the next worker's claim need not wait for it.
/// False when this worker did not hold it.
pub async fn release_lease<C: ConnectionTrait>(db: &C, id: Uuid, worker: &str) -> Result<bool> {
    let release = prompts::Entity::update_many().col_expr(
        prompts::Column::LeaseExpiresAt,
        Expr::value(DateTimeUtc::UNIX_EPOCH),
    );
    while_held(
        db,
        release,
        id,
        worker,
        &UNFINISHED,
        "releasing a prompt lease",
    )
    .await
}

/// Moves a running prompt between `in_progress` and `waiting_for_tools` (while its
/// function calls run). Guarded by the lease: false when this worker no longer owns it
/// or it is not running.
pub async fn set_state<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    worker: &str,
    state: PromptState,
) -> Result<bool> {
    let running = [PromptState::InProgress, PromptState::WaitingForTools];
    if !running.contains(&state) {
        return Err(Error::internal(
            "changing a running prompt's state",
            format!("{state} is not a running state"),
        ));
    }
    let change =
        prompts::Entity::update_many().col_expr(prompts::Column::State, Expr::value(state));
    while_held(
        db,
        change,
        id,
        worker,
        &running,
        "changing a running prompt's state",
    )
    .await
}

/// Runs `update` on prompt `id` only while `worker` holds its lease and it is in one of
/// `states`: true when it took, false when the worker no longer holds the prompt.
async fn while_held<C: ConnectionTrait>(
    db: &C,
    update: UpdateMany<prompts::Entity>,
    id: Uuid,
    worker: &str,
    states: &[PromptState],
    doing: &str,
) -> Result<bool> {
    let updated = update
        .filter(prompts::Column::Id.eq(id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(prompts::Column::State.is_in(states.iter().copied()))
        .exec(db)
        .await
        .context(doing)?;
    Ok(updated.rows_affected == 1)
}

/// Whether a cancel was recorded for the prompt.
pub async fn cancel_requested<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<bool> {
    Ok(get(db, id).await?.cancel_requested_at.is_some())
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
