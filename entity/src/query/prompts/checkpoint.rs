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

use super::finish::cte;
use crate::{
    error::Context,
    prompts,
    query::conversation::{self, BlockDraft, MessageRow},
    sessions,
};

/// The user message a checkpoint writes: its session and its row.
pub type UserRow<'a> = (Uuid, &'a MessageRow);

/// Writes the drafts of prompt `prompt_id` (upserted by index, not finalized) and, when
/// given, its user message. On PostgreSQL one statement, whatever it writes: the
/// session's counter (`UPDATE … RETURNING`), the message with the seq it counted, the
/// prompt's `user_message_id` and the blocks as data-modifying CTEs. Elsewhere the user
/// message's transaction ([`save_user_message`](super::save_user_message)), then the
/// blocks.
pub async fn checkpoint(
    db: &DatabaseConnection,
    prompt_id: Uuid,
    user: Option<UserRow<'_>>,
    drafts: &[BlockDraft],
    now: DateTimeUtc,
) -> Result<()> {
    let Some((session_id, row)) = user else {
        return conversation::checkpoint_blocks(db, prompt_id, drafts, now).await;
    };
    if db.get_database_backend() != DbBackend::Postgres {
        super::save_user_message(db, prompt_id, session_id, row, now).await?;
        return conversation::checkpoint_blocks(db, prompt_id, drafts, now).await;
    }
    let mut with = WithClause::new();
    let counted = conversation::count_on_session(session_id, std::slice::from_ref(row), now)
        .into_query()
        .returning_col(sessions::Column::MessageCount)
        .to_owned();
    with.cte(cte("s", counted));
    // No session row: the `seq` is NULL, which the column refuses, and nothing is written.
    let seq = |_| Expr::cust(r#"(SELECT "message_count" FROM "s")"#);
    if let Some(insert) =
        conversation::messages_insert(session_id, std::slice::from_ref(row), seq, now)
    {
        with.cte(cte("m", insert));
    }
    let named = prompts::Entity::update_many()
        .col_expr(prompts::Column::UserMessageId, Expr::value(row.id))
        .filter(prompts::Column::Id.eq(prompt_id))
        .into_query();
    with.cte(cte("p", named));
    if let Some(upsert) = conversation::blocks_upsert(prompt_id, drafts, None, now) {
        with.cte(cte("b", upsert));
    }
    let select = Query::select()
        .expr(Expr::cust(r#"EXISTS (SELECT 1 FROM "s")"#))
        .to_owned();
    let statement = db.get_database_backend().build(&with.query(select));
    db.execute_raw(statement)
        .await
        .context("checkpointing a turn")?;
    Ok(())
}
