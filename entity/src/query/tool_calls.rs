//! Function calls of a turn (`tool_calls`): recorded when a call starts, finished once,
//! attached to the answer.
//!
//! A call is identified within its prompt by the id the model gave it
//! (`api_tool_call_id`, unique per prompt). A retried turn that replays the same call
//! finds the row it already has — finished or not — instead of inserting a second one,
//! so the caller can reuse a finished call's result instead of running its side effect
//! twice.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, OnConflict, Query},
};
use serde_json::Value;
use uuid::Uuid;

use crate::{
    enums::{PromptState, ToolCallState},
    error::Context,
    prompts, tool_call_archive, tool_calls,
};

/// A call the model asked for.
#[derive(Debug, Clone)]
pub struct NewToolCall {
    pub session_id: Uuid,
    pub prompt_id: Uuid,
    /// The id the model gave the call (unique within the prompt).
    pub api_tool_call_id: String,
    pub tool_name: String,
    pub tool_args: Value,
    /// What the provider must see again of the response that made the call.
    pub provider_state: Option<Value>,
}

/// Records that a call starts: a new row `running` since `now`. When the prompt already
/// has a call with this `api_tool_call_id` (a retried turn), that row is returned
/// unchanged, in whatever state it is. The flag says whether the row is new.
pub async fn start<C: ConnectionTrait>(
    db: &C,
    new: NewToolCall,
    now: DateTimeUtc,
) -> Result<(tool_calls::Model, bool)> {
    use tool_calls::Column as T;
    let id = Uuid::now_v7();
    let row = tool_calls::ActiveModel {
        id: Set(id),
        session_id: Set(new.session_id),
        prompt_id: Set(new.prompt_id),
        block_id: Set(None),
        message_id: Set(None),
        api_tool_call_id: Set(new.api_tool_call_id.clone()),
        tool_name: Set(new.tool_name),
        tool_args: Set(new.tool_args),
        tool_result: Set(None),
        state: Set(ToolCallState::Running),
        error_message: Set(None),
        started_at: Set(Some(now)),
        completed_at: Set(None),
        duration_ms: Set(None),
        created_at: Set(now),
        archived_at: Set(None),
        approval_expires_at: Set(None),
        decided_by: Set(None),
        decided_at: Set(None),
        decision_reason: Set(None),
        requested_args: Set(None),
        provider_state: Set(new.provider_state),
    };
    // One statement: a call already recorded (an earlier attempt's) is "updated" to
    // itself, so `RETURNING` hands back the row either way; it is ours when it has the
    // id we gave it.
    let row = tool_calls::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([T::PromptId, T::ApiToolCallId])
                .update_column(T::PromptId)
                .to_owned(),
        )
        .exec_with_returning(db)
        .await
        .context("recording a tool call")?;
    let inserted = row.id == id;
    Ok((row, inserted))
}

/// Records how a running call ended: `state` (success, error or canceled), its result or
/// error message, `completed_at = now` and the duration since it started. Only a call
/// still `running` changes (a guarded update), so a call is finished once; the row is
/// returned as it is now either way. 404 when there is no such call. `started_at` is
/// when the call started, when the caller knows it (one statement, the guarded
/// `UPDATE … RETURNING`); else it is read first.
pub async fn finish<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    started_at: Option<DateTimeUtc>,
    state: ToolCallState,
    result: Option<Value>,
    error: Option<String>,
    now: DateTimeUtc,
) -> Result<tool_calls::Model> {
    use tool_calls::Column as T;
    if matches!(state, ToolCallState::Created | ToolCallState::Running) {
        return Err(Error::internal(
            "finishing a tool call",
            format!("{state:?} is not a state a call ends in"),
        ));
    }
    let started_at = match started_at {
        Some(started_at) => Some(started_at),
        None => {
            let call = get(db, id).await?;
            if call.state != ToolCallState::Running {
                return Ok(call);
            }
            call.started_at
        }
    };
    let duration_ms = started_at.map(|started| (now - started).num_milliseconds().max(0));
    let finished = tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(state))
        .col_expr(T::ToolResult, Expr::value(result))
        .col_expr(T::ErrorMessage, Expr::value(error))
        .col_expr(T::CompletedAt, Expr::value(Some(now)))
        .col_expr(T::DurationMs, Expr::value(duration_ms))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::Running))
        .exec_with_returning(db)
        .await
        .context("finishing a tool call")?;
    match finished.into_iter().next() {
        Some(call) => Ok(call),
        // Finished before (or no such call): as it is.
        None => get(db, id).await,
    }
}

/// One call by id.
pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<tool_calls::Model> {
    tool_calls::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a tool call")?
        .ok_or(Error::not_found("tool call"))
}

/// A prompt's calls in the order they were made.
pub async fn of_prompt<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
) -> Result<Vec<tool_calls::Model>> {
    use tool_calls::Column as T;
    let calls = tool_calls::Entity::find()
        .filter(T::PromptId.eq(prompt_id))
        .order_by_asc(T::CreatedAt)
        .order_by_asc(T::Id)
        .all(db)
        .await
        .context("reading a prompt's tool calls")?;
    restore_archived(db, calls).await
}

/// Puts archived calls' payloads back from `tool_call_archive` (one read, only when
/// some call was archived).
pub(crate) async fn restore_archived<C: ConnectionTrait>(
    db: &C,
    mut calls: Vec<tool_calls::Model>,
) -> Result<Vec<tool_calls::Model>> {
    let archived: Vec<Uuid> = calls
        .iter()
        .filter(|call| call.archived_at.is_some())
        .map(|call| call.id)
        .collect();
    if archived.is_empty() {
        return Ok(calls);
    }
    let payloads = tool_call_archive::Entity::find()
        .filter(tool_call_archive::Column::Id.is_in(archived))
        .all(db)
        .await
        .context("reading archived tool-call payloads")?;
    for payload in payloads {
        if let Some(call) = calls.iter_mut().find(|call| call.id == payload.id) {
            call.tool_args = payload.tool_args;
            call.tool_result = payload.tool_result;
        }
    }
    Ok(calls)
}

/// Moves the payloads (arguments and result) of up to `limit` calls that finished
/// before `before`, of prompts that can no longer run (`completed`, `canceled`: a
/// `failed` or `error` prompt may be resumed and reuse its calls), into
/// `tool_call_archive`, in one transaction: the copy, then the hot rows emptied (JSON
/// `null`) and marked `archived_at`. Returns how many it moved.
pub async fn archive_payloads(
    db: &DatabaseConnection,
    before: DateTimeUtc,
    limit: u64,
    now: DateTimeUtc,
) -> Result<u64> {
    use sea_orm::{JoinType, QuerySelect, RelationTrait};
    use tool_calls::Column as T;
    let ids: Vec<Uuid> = tool_calls::Entity::find()
        .select_only()
        .column(T::Id)
        .join(JoinType::InnerJoin, tool_calls::Relation::Prompt.def())
        .filter(T::ArchivedAt.is_null())
        .filter(T::CompletedAt.lt(before))
        .filter(prompts::Column::State.is_in([PromptState::Completed, PromptState::Canceled]))
        .order_by_asc(T::CompletedAt)
        .limit(limit)
        .into_tuple()
        .all(db)
        .await
        .context("finding tool calls to archive")?;
    if ids.is_empty() {
        return Ok(0);
    }
    let txn = crate::query::begin_write(db, "starting to archive tool calls").await?;
    let copy = Query::insert()
        .into_table(tool_call_archive::Entity)
        .columns([
            tool_call_archive::Column::Id,
            tool_call_archive::Column::ToolArgs,
            tool_call_archive::Column::ToolResult,
            tool_call_archive::Column::ArchivedAt,
        ])
        .select_from(
            Query::select()
                .columns([T::Id, T::ToolArgs, T::ToolResult])
                .expr(Expr::value(now))
                .from(tool_calls::Entity)
                .and_where(T::Id.is_in(ids.clone()))
                .and_where(T::ArchivedAt.is_null())
                .to_owned(),
        )
        .map_err(|err| Error::internal("archiving tool calls", err.to_string()))?
        .to_owned();
    let backend = txn.get_database_backend();
    txn.execute_raw(backend.build(&copy))
        .await
        .context("copying tool-call payloads to the archive")?;
    let emptied = tool_calls::Entity::update_many()
        .col_expr(T::ToolArgs, Expr::value(Value::Null))
        .col_expr(T::ToolResult, Expr::value(Option::<Value>::None))
        .col_expr(T::ArchivedAt, Expr::value(now))
        .filter(T::Id.is_in(ids))
        .filter(T::ArchivedAt.is_null())
        .exec(&txn)
        .await
        .context("emptying archived tool calls")?;
    txn.commit()
        .await
        .context("committing archived tool calls")?;
    Ok(emptied.rows_affected)
}

/// Attaches all of a prompt's calls to the message that answers it.
///
/// Returns the prompt's calls as [`of_prompt`] does, from the same statement (`UPDATE …
/// RETURNING`).
pub async fn attach<C: ConnectionTrait>(
    db: &C,
    prompt_id: Uuid,
    message_id: Uuid,
) -> Result<Vec<tool_calls::Model>> {
    use tool_calls::Column as T;
    let mut calls = tool_calls::Entity::update_many()
        .col_expr(T::MessageId, Expr::value(message_id))
        .filter(T::PromptId.eq(prompt_id))
        .exec_with_returning(db)
        .await
        .context("attaching tool calls to their message")?;
    calls.sort_by_key(|call| (call.created_at, call.id));
    restore_archived(db, calls).await
}

#[cfg(test)]
mod tests;
