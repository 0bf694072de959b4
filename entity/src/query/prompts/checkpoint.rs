//! A checkpoint of a streaming turn: its partial blocks, and the first time also its
//! user message (counted on the session, named on the prompt), so that the session
//! shows the message and what the answer has so far, and a worker that takes the turn
//! over continues from there.

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend, EntityTrait, QueryFilter,
    QueryTrait,
    prelude::DateTimeUtc,
    sea_query::{Expr, Query, WithClause},
};
use uuid::Uuid;

use super::{LeaseRenewal, LeaseState, finish::cte};
use crate::{
    error::Context,
    prompts,
    query::conversation::{self, BlockDraft, MessageRow},
    sessions,
};

/// The user message a checkpoint writes: its session and its row.
pub type UserRow<'a> = (Uuid, &'a MessageRow);

/// Writes the drafts of prompt `prompt_id` (upserted by index, not finalized) and, when
/// given, its user message, and renews the worker's lease (`lease`, with the prompt's
/// running state when it sets one). On PostgreSQL one
/// statement, whatever it writes: the session's counter (`UPDATE … RETURNING`), the
/// message with the seq it counted, the prompt's `user_message_id` and lease, and the
/// blocks as data-modifying CTEs; it says what the lease's renewal found. Elsewhere the
/// user message's transaction ([`save_user_message`](super::save_user_message)), then
/// the blocks, and the lease is left to its own renewals (`None`).
pub async fn checkpoint(
    db: &DatabaseConnection,
    prompt_id: Uuid,
    user: Option<UserRow<'_>>,
    drafts: &[BlockDraft],
    lease: Option<LeaseRenewal<'_>>,
    now: DateTimeUtc,
) -> Result<Option<LeaseState>> {
    // Nothing but blocks to write (or not PostgreSQL): the blocks' own statement.
    if db.get_database_backend() != DbBackend::Postgres || (user.is_none() && lease.is_none()) {
        if let Some((session_id, row)) = user {
            super::save_user_message(db, prompt_id, session_id, row, now).await?;
        }
        conversation::checkpoint_blocks(db, prompt_id, drafts, now).await?;
        return Ok(None);
    }
    let mut with = WithClause::new();
    let mut named = prompts::Entity::update_many();
    if let Some((session_id, row)) = user {
        let counted = conversation::count_on_session(session_id, std::slice::from_ref(row), now)
            .into_query()
            .returning_col(sessions::Column::MessageCount)
            .to_owned();
        with.cte(cte("s", counted));
        // No session row: the `seq` is NULL, which the column refuses, and nothing is
        // written.
        let seq = |_| Expr::cust(r#"(SELECT "message_count" FROM "s")"#);
        if let Some(insert) =
            conversation::messages_insert(session_id, std::slice::from_ref(row), seq, now)
        {
            with.cte(cte("m", insert));
        }
        named = named.col_expr(prompts::Column::UserMessageId, Expr::value(row.id));
    }
    if let Some(lease) = &lease {
        named = named.col_expr(prompts::Column::LeaseExpiresAt, lease.expires_at());
        if let Some(state) = lease.state_value() {
            named = named.col_expr(prompts::Column::State, state);
        }
    }
    let mut named = named.filter(prompts::Column::Id.eq(prompt_id)).into_query();
    named.returning(Query::returning().columns([
        prompts::Column::LeaseExpiresAt,
        prompts::Column::CancelRequestedAt,
    ]));
    with.cte(cte("p", named));
    if let Some(upsert) = conversation::blocks_upsert(prompt_id, drafts, None, now) {
        with.cte(cte("b", upsert));
    }
    let select = Query::select()
        .expr_as(
            Expr::cust(r#"(SELECT "lease_expires_at" FROM "p")"#),
            "lease_expires_at",
        )
        .expr_as(
            Expr::cust(r#"(SELECT "cancel_requested_at" FROM "p")"#),
            "cancel_requested_at",
        )
        .to_owned();
    let statement = db.get_database_backend().build(&with.query(select));
    let row = db
        .query_one_raw(statement)
        .await
        .context("checkpointing a turn")?;
    let Some(lease) = lease else {
        return Ok(None);
    };
    let read = |column: &str| -> Result<Option<DateTimeUtc>> {
        match &row {
            Some(row) => row.try_get("", column).context("reading a checkpoint"),
            None => Ok(None),
        }
    };
    Ok(Some(lease.state(
        read("lease_expires_at")?,
        read("cancel_requested_at")?,
    )))
}
