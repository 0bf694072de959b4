//! What a turn writes: messages (gap-free `seq` per session), the blocks of an answer
//! (checkpointed while streaming, finalized onto the assistant message) and `ai_usage`.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ActiveEnum, ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, QueryTrait, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, InsertStatement, Query},
};
use uuid::Uuid;

mod blocks;

pub use blocks::{
    BlockDraft, attach_files, attachments_of, blocks_of, checkpoint_blocks, discard_blocks,
    finalize_blocks, write_final_blocks,
};
pub(crate) use blocks::{blocks_upsert, finalize_other_blocks};

use crate::{ai_usage, enums::MessageRole, error::Context, messages, sessions};

/// A message to append to a session.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub session_id: Uuid,
    pub role: MessageRole,
    pub content: String,
    pub prompt_id: Option<Uuid>,
    pub is_complete: bool,
}

/// Appends a message with the session's next `seq` after the session's active leaf,
/// which it becomes (one transaction: the leaf's read, then [`append_messages`]). For
/// messages outside a turn (a timer's notice); a turn names each parent itself.
pub async fn append_message(
    db: &DatabaseConnection,
    new: NewMessage,
    now: DateTimeUtc,
) -> Result<messages::Model> {
    let txn = super::begin_write(db, "starting to append a message").await?;
    let parent_id = active_leaf(&txn, new.session_id).await?;
    let row = MessageRow {
        id: Uuid::now_v7(),
        role: new.role,
        content: new.content,
        prompt_id: new.prompt_id,
        is_complete: new.is_complete,
        parent_id,
    };
    let seq = append_messages(&txn, new.session_id, std::slice::from_ref(&row), now).await?;
    txn.commit().await.context("committing a message")?;
    Ok(row.into_model(new.session_id, seq, now))
}

/// The last message of the session's active branch (none before its first message).
pub async fn active_leaf<C: ConnectionTrait>(db: &C, session_id: Uuid) -> Result<Option<Uuid>> {
    let leaf: Option<Option<Uuid>> = sessions::Entity::find_by_id(session_id)
        .select_only()
        .column(sessions::Column::ActiveLeafId)
        .into_tuple()
        .one(db)
        .await
        .context("reading a session's active leaf")?;
    leaf.ok_or(Error::not_found("session"))
}

/// A message whose id the caller chose (so rows written in the same transaction can
/// point at it).
#[derive(Debug, Clone)]
pub struct MessageRow {
    pub id: Uuid,
    pub role: MessageRole,
    pub content: String,
    pub prompt_id: Option<Uuid>,
    pub is_complete: bool,
    /// The message it follows in the session's tree (none: a first message).
    pub parent_id: Option<Uuid>,
}

impl MessageRow {
    pub fn into_model(self, session_id: Uuid, seq: i32, now: DateTimeUtc) -> messages::Model {
        messages::Model {
            id: self.id,
            session_id,
            seq,
            role: self.role,
            content: self.content,
            is_complete: self.is_complete,
            prompt_id: self.prompt_id,
            created_at: now,
            parent_id: self.parent_id,
        }
    }
}

/// Appends messages in order, inside the caller's transaction: the session's
/// `message_count` is the counter of its `seq`s (every append raises it in the same
/// transaction, and the row lock orders concurrent appenders), so the append is one
/// `UPDATE … RETURNING` and one `INSERT` — no `MAX(seq)` scan. The last row becomes the
/// session's active leaf in the same `UPDATE`. Returns the first seq.
pub async fn append_messages<C: ConnectionTrait>(
    txn: &C,
    session_id: Uuid,
    rows: &[MessageRow],
    now: DateTimeUtc,
) -> Result<i32> {
    let counted = count_on_session(session_id, rows, now)
        .exec_with_returning(txn)
        .await
        .context("counting messages on their session")?;
    let count = counted
        .first()
        .map(|s| s.message_count)
        .ok_or(Error::not_found("session"))?;
    let first = count - rows.len() as i32 + 1;
    insert_messages(txn, session_id, rows, first, now).await?;
    Ok(first)
}

/// The session's `UPDATE` that counts `rows` on it (its `seq` counter) and makes the last
/// of them its active leaf.
pub(crate) fn count_on_session(
    session_id: Uuid,
    rows: &[MessageRow],
    now: DateTimeUtc,
) -> sea_orm::UpdateMany<sessions::Entity> {
    let mut update = sessions::Entity::update_many()
        .col_expr(
            sessions::Column::MessageCount,
            Expr::col(sessions::Column::MessageCount).add(rows.len() as i32),
        )
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now));
    if let Some(last) = rows.last() {
        update = update.col_expr(sessions::Column::ActiveLeafId, Expr::value(last.id));
    }
    update.filter(sessions::Column::Id.eq(session_id))
}

/// Inserts messages with seqs `first`, `first + 1`, … (already counted on the session).
pub async fn insert_messages<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    rows: &[MessageRow],
    first: i32,
    now: DateTimeUtc,
) -> Result<()> {
    let insert = messages_insert(session_id, rows, |i| Expr::val(first + i as i32), now);
    execute_if_any(db, insert, "appending messages").await
}

/// Runs `insert` when there is one (a builder gives none for no rows).
async fn execute_if_any<C: ConnectionTrait>(
    db: &C,
    insert: Option<InsertStatement>,
    attempt: &str,
) -> Result<()> {
    if let Some(insert) = insert {
        db.execute_raw(db.get_database_backend().build(&insert))
            .await
            .context(attempt)?;
    }
    Ok(())
}

/// The `INSERT` of `rows` (none for no rows); row `i`'s `seq` is `seq(i)`, a value or an
/// expression (the finish's single statement counts from the session it updates).
pub(crate) fn messages_insert(
    session_id: Uuid,
    rows: &[MessageRow],
    seq: impl Fn(usize) -> Expr,
    now: DateTimeUtc,
) -> Option<InsertStatement> {
    if rows.is_empty() {
        return None;
    }
    let mut insert = Query::insert();
    insert.into_table(messages::Entity).columns([
        messages::Column::Id,
        messages::Column::SessionId,
        messages::Column::Seq,
        messages::Column::Role,
        messages::Column::Content,
        messages::Column::IsComplete,
        messages::Column::PromptId,
        messages::Column::CreatedAt,
        messages::Column::ParentId,
    ]);
    for (i, row) in rows.iter().enumerate() {
        insert.values_panic([
            Expr::val(row.id),
            Expr::val(session_id),
            seq(i),
            Expr::val(row.role.to_value()),
            Expr::val(row.content.clone()),
            Expr::val(row.is_complete),
            Expr::val(row.prompt_id),
            Expr::val(now),
            Expr::val(row.parent_id),
        ]);
    }
    Some(insert)
}

pub async fn get_message<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<messages::Model> {
    messages::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a message")?
        .ok_or(Error::not_found("message"))
}

/// One LLM call's usage.
#[derive(Debug, Clone)]
pub struct UsageRow {
    pub prompt_id: Uuid,
    pub message_id: Option<Uuid>,
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    pub model: String,
    pub vendor: String,
    /// The call's tokens by kind.
    pub tokens: parley_protocol::events::Usage,
    pub cost_usd: f64,
    pub latency_ms: i64,
    pub ttft_ms: Option<i64>,
    /// How the call failed; `None`: it did not.
    pub error: Option<crate::enums::CallError>,
}

/// A token count as its column holds it.
fn count(tokens: u64) -> i64 {
    i64::try_from(tokens).unwrap_or(i64::MAX)
}

impl ai_usage::Model {
    /// The row's tokens by kind.
    pub fn tokens(&self) -> parley_protocol::events::Usage {
        let count = |n: i64| u64::try_from(n).unwrap_or(0);
        parley_protocol::events::Usage {
            input_tokens: count(self.input_tokens),
            output_tokens: count(self.output_tokens),
            cached_input_tokens: count(self.cached_input_tokens),
            cache_write_tokens: count(self.cache_write_tokens),
            reasoning_tokens: count(self.reasoning_tokens),
        }
    }
}

/// One row per LLM call, in one statement.
pub async fn record_usage<C: ConnectionTrait>(
    db: &C,
    rows: Vec<UsageRow>,
    now: DateTimeUtc,
) -> Result<()> {
    execute_if_any(db, usage_insert(rows, now), "recording usage").await
}

/// The `INSERT` of `rows`; none for no rows.
pub(crate) fn usage_insert(rows: Vec<UsageRow>, now: DateTimeUtc) -> Option<InsertStatement> {
    if rows.is_empty() {
        return None;
    }
    let models = rows.into_iter().map(|row| ai_usage::ActiveModel {
        id: Set(Uuid::now_v7()),
        prompt_id: Set(row.prompt_id),
        message_id: Set(row.message_id),
        session_id: Set(row.session_id),
        user_id: Set(row.user_id),
        tool_id: Set(row.tool_id),
        model: Set(row.model),
        vendor: Set(row.vendor),
        input_tokens: Set(count(row.tokens.input_tokens)),
        output_tokens: Set(count(row.tokens.output_tokens)),
        cached_input_tokens: Set(count(row.tokens.cached_input_tokens)),
        cache_write_tokens: Set(count(row.tokens.cache_write_tokens)),
        reasoning_tokens: Set(count(row.tokens.reasoning_tokens)),
        cost_usd: Set(row.cost_usd),
        latency_ms: Set(row.latency_ms),
        ttft_ms: Set(row.ttft_ms),
        error: Set(row.error),
        created_at: Set(now),
    });
    Some(ai_usage::Entity::insert_many(models).into_query())
}

/// Usage rows of a prompt, oldest first.
pub async fn usage_of<C: ConnectionTrait>(db: &C, prompt_id: Uuid) -> Result<Vec<ai_usage::Model>> {
    ai_usage::Entity::find()
        .filter(ai_usage::Column::PromptId.eq(prompt_id))
        .order_by_asc(ai_usage::Column::Id)
        .all(db)
        .await
        .context("reading usage")
}

/// Rewrites a message's content (a resumed turn writing its answer again).
pub async fn update_message<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    content: String,
    is_complete: bool,
) -> Result<messages::Model> {
    let mut message: messages::ActiveModel = get_message(db, id).await?.into();
    message.content = Set(content);
    message.is_complete = Set(is_complete);
    message.update(db).await.context("updating a message")
}

/// Appends the earlier messages of a conversation a client brings with its first
/// message (an OpenAI-compatible client sends the whole history with each request) to
/// a new session, as complete messages of no prompt: context assembly reads them like
/// the session's own. One transaction.
pub async fn import_history(
    db: &DatabaseConnection,
    session_id: Uuid,
    history: Vec<(MessageRole, String)>,
    now: DateTimeUtc,
) -> Result<()> {
    if history.is_empty() {
        return Ok(());
    }
    let txn = super::begin_write(db, "starting to import a conversation's history").await?;
    let mut parent_id = active_leaf(&txn, session_id).await?;
    let rows: Vec<MessageRow> = history
        .into_iter()
        .map(|(role, content)| {
            let id = Uuid::now_v7();
            let row = MessageRow {
                id,
                role,
                content,
                prompt_id: None,
                is_complete: true,
                parent_id,
            };
            parent_id = Some(id);
            row
        })
        .collect();
    append_messages(&txn, session_id, &rows, now).await?;
    txn.commit()
        .await
        .context("committing a conversation's history")
}
