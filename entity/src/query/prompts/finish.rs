//! Ending an attempt: the terminal state and what it produced, written with the hand-off
//! of the session to its next waiting prompt ([`handover`](super::handover)).

use parley_protocol::error::Result;
use parley_protocol::{events::ResponseExtras, route::RouteDecision};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DatabaseTransaction, DbBackend, EntityTrait,
    FromQueryResult, QueryFilter, QueryTrait,
    prelude::DateTimeUtc,
    sea_query::{Alias, CommonTableExpression, Expr, ExprTrait, Query, WithClause},
};
use uuid::Uuid;

use super::{
    UNFINISHED,
    handover::{Marks, counted_hand_over, release_session},
};
use crate::{
    enums::{ErrorCode, PromptState},
    error::Context,
    prompts,
    query::{
        batch::{self, Batch},
        conversation::{self, BlockDraft, MessageRow, UsageRow},
    },
    sessions,
};

/// How a turn ended, as the worker records it.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub state: PromptState,
    pub assistant_message_id: Option<Uuid>,
    pub user_message_id: Option<Uuid>,
    pub model: Option<String>,
    pub vendor: Option<String>,
    pub system_message: Option<String>,
    pub error_code: Option<ErrorCode>,
    /// The message readers see (never backend or provider text).
    pub error: Option<String>,
    /// The answer's payload and suggestions, when it has any.
    pub response: Option<ResponseExtras>,
    /// The skill router's decision, when the turn was routed.
    pub route: Option<RouteDecision>,
    /// The seq the turn's terminal event will have, when the worker knows it: the
    /// prompt's `seq_ceiling` from now on (else the ceiling stays the bound it is).
    pub terminal_seq: Option<u64>,
}

impl Outcome {
    /// An outcome in `state` that records nothing else.
    pub fn bare(state: PromptState) -> Self {
        Self {
            state,
            assistant_message_id: None,
            user_message_id: None,
            model: None,
            vendor: None,
            system_message: None,
            error_code: None,
            error: None,
            response: None,
            route: None,
            terminal_seq: None,
        }
    }

    /// A failure with `code` and its stable message.
    pub fn failure(state: PromptState, code: ErrorCode) -> Self {
        Self {
            error_code: Some(code),
            error: Some(code.message().to_owned()),
            ..Self::bare(state)
        }
    }
}

/// What [`finish`] did.
#[derive(Debug, Clone)]
pub enum Finished {
    /// The attempt is recorded; `next` is the session's next waiting prompt, whose job
    /// the caller enqueues.
    Ended {
        prompt: Box<prompts::Model>,
        next: Option<Uuid>,
        /// The session's message counter just after this finish counted its messages on
        /// it (in the same transaction); `None` when it counted none and left the counter
        /// alone.
        message_count: Option<i32>,
    },
    /// The worker no longer owns the prompt (its lease lapsed and another worker took
    /// it, or it finished meanwhile): nothing was written, the worker must stop.
    LeaseLost,
}

/// What the end of an attempt writes with its prompt row, in the same transaction.
#[derive(Debug, Default)]
pub struct TurnWrites {
    /// New messages of the session, in order (the user message when no checkpoint wrote
    /// it, the answer); their seqs come from the session's counter.
    pub messages: Vec<MessageRow>,
    /// The answer's blocks, written finalized onto `answer_id`.
    pub blocks: Vec<BlockDraft>,
    /// The assistant message the blocks belong to.
    pub answer_id: Option<Uuid>,
    /// Checkpoints wrote blocks before: finalize every answer block of the prompt (also
    /// those the final answer no longer has).
    pub checkpointed: bool,
    /// One row per LLM call.
    pub usage: Vec<UsageRow>,
    /// The first words of the user's message, for a session without a title (set only
    /// where the turn completed): written in the session's update, never over a title.
    pub title: Option<String>,
}

impl TurnWrites {
    /// What these writes also mark on the session: the active leaf (the last message
    /// they add) and the first words' title.
    fn marks(&self) -> Marks<'_> {
        Marks {
            leaf: self.messages.last().map(|m| m.id),
            title: self.title.as_deref(),
        }
    }
}

/// Ends the worker's attempt with `outcome.state` (terminal for the job: `completed`,
/// `error`, `failed` or `canceled`; the last three can be resumed later), writes what it
/// produced and hands the session to its next waiting prompt — one transaction of five
/// statements for a plain turn: the session (message counter and hand-over, `UPDATE …
/// RETURNING`), the messages, the blocks, the usage, and last the prompt, guarded by the
/// lease (when that finds nothing, everything rolls back: [`Finished::LeaseLost`]). On
/// PostgreSQL a plain turn's five are one statement ([`finish_in_one_statement`]).
pub async fn finish(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    worker: &str,
    outcome: Outcome,
    writes: TurnWrites,
    now: DateTimeUtc,
) -> Result<Finished> {
    let (prompt, worker) = (prompt.clone(), worker.to_owned());
    crate::query::on_writer(db, crate::query::Urgency::InOrder, move |db| async move {
        write_finish(&db, &prompt, &worker, outcome, writes, now).await
    })
    .await
}

async fn write_finish(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    worker: &str,
    outcome: Outcome,
    writes: TurnWrites,
    now: DateTimeUtc,
) -> Result<Finished> {
    if db.get_database_backend() == DbBackend::Postgres {
        let txn = crate::query::begin_write(db, "starting to finish a prompt").await?;
        match finish_in_one_statement(&txn, prompt, worker, &outcome, &writes, now).await {
            Ok(Some(finished)) => {
                txn.commit().await.context("committing a finished prompt")?;
                return Ok(finished);
            }
            Ok(None) => {}
            Err(err) => {
                tracing::debug!(error = %err, "the one-statement finish failed; finishing step by step")
            }
        }
        // Dropping the transaction rolls it back; the general path decides.
    }
    if db.get_database_backend() == DbBackend::Sqlite && crate::query::owns_connection(db) {
        match finish_in_two_batches(db, prompt, worker, &outcome, &writes, now).await {
            Ok(Some(finished)) => return Ok(finished),
            Ok(None) => {}
            Err(err) => {
                tracing::debug!(error = %err, "the batched finish failed; finishing step by step")
            }
        }
    }
    let txn = crate::query::begin_write(db, "starting to finish a prompt").await?;
    let (count, next) = release_session(
        &txn,
        prompt.session_id,
        prompt.id,
        writes.messages.len(),
        writes.marks(),
        now,
    )
    .await?;
    let counted = (!writes.messages.is_empty()).then_some(count);
    let first = count - writes.messages.len() as i32 + 1;
    conversation::insert_messages(&txn, prompt.session_id, &writes.messages, first, now).await?;
    if let Some(answer) = writes.answer_id {
        conversation::write_final_blocks(&txn, prompt.id, answer, &writes.blocks, now).await?;
        if writes.checkpointed {
            conversation::finalize_blocks(&txn, prompt.id, answer).await?;
        }
    }
    conversation::record_usage(&txn, writes.usage, now).await?;
    let done = finish_update(prompt, worker, outcome, now)
        .exec_with_returning(&txn)
        .await
        .context("finishing a prompt")?;
    let Some(prompt) = done.into_iter().next() else {
        // Dropping the transaction rolls back what it wrote.
        return Ok(Finished::LeaseLost);
    };
    txn.commit().await.context("committing a finished prompt")?;
    Ok(Finished::Ended {
        prompt: Box::new(prompt),
        next,
        message_count: counted,
    })
}

/// The prompt's `UPDATE` to `outcome`, guarded by the worker's lease and an unfinished
/// state (it matches nothing when the lease was lost).
fn finish_update(
    prompt: &prompts::Model,
    worker: &str,
    outcome: Outcome,
    now: DateTimeUtc,
) -> sea_orm::UpdateMany<prompts::Entity> {
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
    if let Some(response) = outcome.response {
        update = update.col_expr(prompts::Column::Response, Expr::value(response));
    }
    if let Some(route) = outcome.route {
        update = update.col_expr(prompts::Column::Route, Expr::value(route));
    }
    if let Some(system) = outcome.system_message {
        update = update.col_expr(prompts::Column::SystemMessage, Expr::value(system));
    }
    if let Some(seq) = outcome.terminal_seq.and_then(|seq| i64::try_from(seq).ok()) {
        update = update.col_expr(prompts::Column::SeqCeiling, Expr::value(seq));
    }
    update
        .filter(prompts::Column::Id.eq(prompt.id))
        .filter(prompts::Column::LeaseOwner.eq(worker))
        .filter(prompts::Column::State.is_in(UNFINISHED))
}

/// A plain finish on SQLite in two round trips instead of seven: `BEGIN`, the session's
/// hand-over, the messages (their `seq`s counted from the session's counter just
/// raised), the blocks, the usage and the prompt's guarded `UPDATE`, in the general
/// path's order, as one batch; then `COMMIT` when both guarded updates took. `None`
/// (rolled back) when they did not — the lease is lost, or the prompt no longer holds
/// the session — and the caller takes the general path, which tells them apart; also
/// when a statement fails (a prompt that does not hold the session counts its messages
/// from a counter it did not raise, which may collide). `db` is the writer's own
/// connection ([`crate::query::batch`]).
pub(crate) async fn finish_in_two_batches(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    worker: &str,
    outcome: &Outcome,
    writes: &TurnWrites,
    now: DateTimeUtc,
) -> Result<Option<Finished>> {
    let added = writes.messages.len();
    let count = Query::select()
        .column(sessions::Column::MessageCount)
        .from(sessions::Entity)
        .and_where(sessions::Column::Id.eq(prompt.session_id))
        .to_owned();
    let seq = |i: usize| {
        Expr::SubQuery(None, Box::new(count.clone().into()))
            .sub(added as i32)
            .add(i as i32 + 1)
    };
    let messages = conversation::messages_insert(prompt.session_id, &writes.messages, seq, now);
    let blocks = writes.answer_id.and_then(|answer| {
        conversation::blocks_upsert(prompt.id, &writes.blocks, Some(answer), now)
    });
    let others = finalize_others(prompt, writes);
    let usage = conversation::usage_insert(writes.usage.clone(), now);
    let mut finished = finish_update(prompt, worker, outcome.clone(), now).into_query();
    finished.returning_all();
    batch::transaction(db, async {
        let rows = Batch::begin()
            .then(Some(&counted_hand_over(prompt, added, writes.marks(), now)))
            .then(messages.as_ref())
            .then(blocks.as_ref())
            .then(others.as_ref())
            .then(usage.as_ref())
            .then(Some(&finished))
            .run(db, "finishing a prompt")
            .await?;
        let (mut next, mut held, mut ended) = (None, None, None);
        for row in &rows {
            if let Ok(count) = row.try_get::<i32>("", "message_count") {
                held = Some(count);
                next = row
                    .try_get("", "active_prompt_id")
                    .context("reading a finish")?;
            } else {
                ended =
                    Some(prompts::Model::from_query_result(row, "").context("reading a prompt")?);
            }
        }
        let (Some(count), Some(prompt)) = (held, ended) else {
            return Ok(None);
        };
        Batch::default()
            .commit()
            .run(db, "committing a finished prompt")
            .await?;
        Ok(Some(Finished::Ended {
            prompt: Box::new(prompt),
            next,
            message_count: (added > 0).then_some(count),
        }))
    })
    .await
}

/// A plain finish on PostgreSQL as one statement inside the transaction: the prompt's
/// guarded `UPDATE` (`p`), the session's counter and hand-over (`s`, only while the
/// prompt holds the session), the messages (their `seq`s counted from `s`), the blocks
/// and the usage as data-modifying CTEs — one round trip instead of five. `None` when
/// that is not the whole story (the lease is lost, or the prompt no longer holds the
/// session): the caller rolls back and takes the general path, which tells them apart.
/// A turn that checkpointed also finalizes the blocks its answer no longer has, in a CTE
/// of its own over the other indices (a statement may not update a row twice).
async fn finish_in_one_statement(
    txn: &DatabaseTransaction,
    prompt: &prompts::Model,
    worker: &str,
    outcome: &Outcome,
    writes: &TurnWrites,
    now: DateTimeUtc,
) -> Result<Option<Finished>> {
    let added = writes.messages.len();
    let mut with = WithClause::new();
    let mut finished = finish_update(prompt, worker, outcome.clone(), now).into_query();
    finished.returning_all();
    with.cte(cte("p", finished));
    with.cte(cte(
        "s",
        counted_hand_over(prompt, added, writes.marks(), now),
    ));
    // A missing `s` makes every `seq` NULL, which the column refuses: the statement fails
    // and the caller takes the general path.
    let seq = |i: usize| {
        Expr::cust(format!(
            r#"(SELECT "message_count" FROM "s") - {added} + {}"#,
            i + 1
        ))
    };
    if let Some(insert) =
        conversation::messages_insert(prompt.session_id, &writes.messages, seq, now)
    {
        with.cte(cte("m", insert));
    }
    if let Some(answer) = writes.answer_id
        && let Some(upsert) =
            conversation::blocks_upsert(prompt.id, &writes.blocks, Some(answer), now)
    {
        with.cte(cte("b", upsert));
    }
    if let Some(others) = finalize_others(prompt, writes) {
        with.cte(cte("f", others));
    }
    if let Some(insert) = conversation::usage_insert(writes.usage.clone(), now) {
        with.cte(cte("u", insert));
    }
    let select = Query::select()
        .expr(Expr::cust(super::turn::prefixed::<prompts::Entity>("p")))
        .expr_as(
            Expr::cust(r#"(SELECT "active_prompt_id" FROM "s")"#),
            Alias::new("s_next"),
        )
        .expr_as(
            Expr::cust(r#"EXISTS (SELECT 1 FROM "s")"#),
            Alias::new("s_held"),
        )
        .expr_as(
            Expr::cust(r#"(SELECT "message_count" FROM "s")"#),
            Alias::new("s_count"),
        )
        .from(Alias::new("p"))
        .to_owned();
    let statement = txn.get_database_backend().build(&with.query(select));
    let Some(row) = txn
        .query_one_raw(statement)
        .await
        .context("finishing a prompt")?
    else {
        return Ok(None);
    };
    let held: bool = row.try_get("", "s_held").context("reading a finish")?;
    if !held {
        return Ok(None);
    }
    let next: Option<Uuid> = row.try_get("", "s_next").context("reading a finish")?;
    let count: i32 = row.try_get("", "s_count").context("reading a finish")?;
    let prompt = prompts::Model::from_query_result(&row, "p_").context("reading a prompt")?;
    Ok(Some(Finished::Ended {
        prompt: Box::new(prompt),
        next,
        message_count: (added > 0).then_some(count),
    }))
}

/// For a checkpointed turn with an answer: finalizing the checkpointed blocks the final
/// answer does not upsert.
fn finalize_others(
    prompt: &prompts::Model,
    writes: &TurnWrites,
) -> Option<sea_orm::sea_query::UpdateStatement> {
    let answer = writes.answer_id.filter(|_| writes.checkpointed)?;
    let upserted = writes.blocks.iter().map(|block| block.index);
    Some(conversation::finalize_other_blocks(
        prompt.id, answer, upserted,
    ))
}

pub(super) fn cte(
    name: &str,
    query: impl Into<sea_orm::sea_query::SubQueryStatement>,
) -> CommonTableExpression {
    CommonTableExpression::new()
        .query(query)
        .table_name(Alias::new(name))
        .to_owned()
}
