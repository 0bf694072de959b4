//! Function calls of a turn (`tool_calls`): recorded when a call starts, finished once,
//! attached to the answer.
//!
//! A call is identified within its prompt by the id the model gave it
//! (`api_tool_call_id`, unique per prompt). A retried turn that replays the same call
//! finds the row it already has — finished or not — instead of inserting a second one,
//! so the caller can reuse a finished call's result instead of running its side effect
//! twice.

use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter, QueryOrder, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, OnConflict, Query},
};
use serde_json::Value;
use uuid::Uuid;

use crate::{
    enums::{PromptState, ToolCallState},
    error::{Context, Error, Result},
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
    let row = tool_calls::ActiveModel {
        id: Set(Uuid::now_v7()),
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
    };
    let inserted = tool_calls::Entity::insert(row)
        .on_conflict(
            OnConflict::columns([T::PromptId, T::ApiToolCallId])
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("recording a tool call")?;
    let row = tool_calls::Entity::find()
        .filter(T::PromptId.eq(new.prompt_id))
        .filter(T::ApiToolCallId.eq(new.api_tool_call_id))
        .one(db)
        .await
        .context("reading a tool call")?
        .ok_or(Error::not_found("tool call"))?;
    Ok((row, inserted == 1))
}

/// Records how a running call ended: `state` (success, error or canceled), its result or
/// error message, `completed_at = now` and the duration since it started. Only a call
/// still `running` changes (a guarded update), so a call is finished once; the row is
/// returned as it is now either way. 404 when there is no such call.
pub async fn finish<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
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
    let call = get(db, id).await?;
    if call.state != ToolCallState::Running {
        return Ok(call);
    }
    let duration_ms = call
        .started_at
        .map(|started| (now - started).num_milliseconds().max(0));
    tool_calls::Entity::update_many()
        .col_expr(T::State, Expr::value(state))
        .col_expr(T::ToolResult, Expr::value(result))
        .col_expr(T::ErrorMessage, Expr::value(error))
        .col_expr(T::CompletedAt, Expr::value(Some(now)))
        .col_expr(T::DurationMs, Expr::value(duration_ms))
        .filter(T::Id.eq(id))
        .filter(T::State.eq(ToolCallState::Running))
        .exec(db)
        .await
        .context("finishing a tool call")?;
    get(db, id).await
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
async fn restore_archived<C: ConnectionTrait>(
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
pub async fn attach<C: ConnectionTrait>(db: &C, prompt_id: Uuid, message_id: Uuid) -> Result<()> {
    use tool_calls::Column as T;
    tool_calls::Entity::update_many()
        .col_expr(T::MessageId, Expr::value(message_id))
        .filter(T::PromptId.eq(prompt_id))
        .exec(db)
        .await
        .context("attaching tool calls to their message")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use chrono::Duration;
    use serde_json::json;

    use super::*;
    use crate::{
        enums::UserRole,
        query::testing::{self, on_both_backends},
    };

    fn call(session_id: Uuid, prompt_id: Uuid, api_id: &str) -> NewToolCall {
        NewToolCall {
            session_id,
            prompt_id,
            api_tool_call_id: api_id.to_owned(),
            tool_name: "createTodo".to_owned(),
            tool_args: json!({"title": "Read chapter 3"}),
        }
    }

    on_both_backends!(start_twice_returns_the_same_row, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        let prompt = testing::prompt(&db, session.id).await;
        let t0 = crate::query::now();

        let (first, inserted) = start(&db, call(session.id, prompt.id, "call_1"), t0)
            .await
            .unwrap();
        assert!(inserted, "a new call is a new row");
        assert_eq!(first.state, ToolCallState::Running);
        assert_eq!(first.started_at, Some(t0));
        assert_eq!(first.created_at, t0);
        assert_eq!(first.tool_args, json!({"title": "Read chapter 3"}));
        assert_eq!(
            (first.tool_result.as_ref(), first.completed_at),
            (None, None)
        );

        // A retried turn replays the call: the same row, even with other arguments.
        let mut replay = call(session.id, prompt.id, "call_1");
        replay.tool_args = json!({"title": "something else"});
        let (again, inserted) = start(&db, replay, t0 + Duration::seconds(5)).await.unwrap();
        assert_eq!(again, first);
        assert!(!inserted, "a replayed call finds its row");

        // Finished, a replay still finds it, finished.
        let done = finish(
            &db,
            first.id,
            ToolCallState::Success,
            Some(json!({"id": "t1"})),
            None,
            t0 + Duration::milliseconds(1500),
        )
        .await
        .unwrap();
        let replayed = start(
            &db,
            call(session.id, prompt.id, "call_1"),
            t0 + Duration::seconds(9),
        )
        .await
        .unwrap()
        .0;
        assert_eq!(replayed, done);
        assert_eq!(replayed.state, ToolCallState::Success);

        // Another id, or the same id in another prompt, is another call.
        let second = start(&db, call(session.id, prompt.id, "call_2"), t0)
            .await
            .unwrap()
            .0;
        assert_ne!(second.id, first.id);
        let other_prompt = testing::prompt(&db, session.id).await;
        let elsewhere = start(&db, call(session.id, other_prompt.id, "call_1"), t0)
            .await
            .unwrap()
            .0;
        assert_ne!(elsewhere.id, first.id);
        assert_eq!(of_prompt(&db, prompt.id).await.unwrap().len(), 2);
    });

    on_both_backends!(finish_happens_once, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        let prompt = testing::prompt(&db, session.id).await;
        let t0 = crate::query::now();
        let running = start(&db, call(session.id, prompt.id, "call_1"), t0)
            .await
            .unwrap()
            .0;

        let t1 = t0 + Duration::milliseconds(1234);
        let done = finish(
            &db,
            running.id,
            ToolCallState::Error,
            None,
            Some("the function timed out".into()),
            t1,
        )
        .await
        .unwrap();
        assert_eq!(done.state, ToolCallState::Error);
        assert_eq!(
            done.error_message.as_deref(),
            Some("the function timed out")
        );
        assert_eq!(done.tool_result, None);
        assert_eq!(done.completed_at, Some(t1));
        assert_eq!(done.duration_ms, Some(1234));
        assert_eq!(done.started_at, Some(t0));

        // A second finish (a late executor, a cancel) changes nothing.
        let late = finish(
            &db,
            running.id,
            ToolCallState::Success,
            Some(json!({"ok": true})),
            None,
            t1 + Duration::seconds(3),
        )
        .await
        .unwrap();
        assert_eq!(late, done);

        // Only final states end a call; an unknown call is 404.
        assert!(matches!(
            finish(&db, running.id, ToolCallState::Running, None, None, t1).await,
            Err(Error::Internal(_))
        ));
        assert!(matches!(
            finish(&db, Uuid::now_v7(), ToolCallState::Canceled, None, None, t1).await,
            Err(Error::NotFound { .. })
        ));

        // A success keeps its result.
        let ok = start(&db, call(session.id, prompt.id, "call_2"), t0)
            .await
            .unwrap()
            .0;
        let ok = finish(
            &db,
            ok.id,
            ToolCallState::Success,
            Some(json!({"todo": {"title": "x"}})),
            None,
            t0,
        )
        .await
        .unwrap();
        assert_eq!(ok.tool_result, Some(json!({"todo": {"title": "x"}})));
        assert_eq!(ok.duration_ms, Some(0));
    });

    on_both_backends!(calls_of_a_prompt_in_order_and_attached, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        let prompt = testing::prompt(&db, session.id).await;
        let other = testing::prompt(&db, session.id).await;
        let t0 = crate::query::now();
        let a = start(&db, call(session.id, prompt.id, "b_later_id"), t0)
            .await
            .unwrap()
            .0;
        let b = start(
            &db,
            call(session.id, prompt.id, "a_first_id"),
            t0 + Duration::seconds(1),
        )
        .await
        .unwrap()
        .0;
        let c = start(&db, call(session.id, other.id, "x"), t0)
            .await
            .unwrap()
            .0;
        let ids: Vec<Uuid> = of_prompt(&db, prompt.id)
            .await
            .unwrap()
            .iter()
            .map(|c| c.id)
            .collect();
        assert_eq!(ids, [a.id, b.id]);
        assert!(of_prompt(&db, Uuid::now_v7()).await.unwrap().is_empty());

        let answer = testing::message(
            &db,
            session.id,
            crate::enums::MessageRole::Assistant,
            "Done.",
        )
        .await;
        attach(&db, prompt.id, answer.id).await.unwrap();
        for call in of_prompt(&db, prompt.id).await.unwrap() {
            assert_eq!(call.message_id, Some(answer.id));
        }
        assert_eq!(
            get(&db, c.id).await.unwrap().message_id,
            None,
            "other prompts untouched"
        );
    });

    on_both_backends!(old_payloads_of_finished_turns_move_to_the_archive, |db| {
        use crate::enums::PromptState;
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await;
        let t0 = crate::query::now();
        let mut prompts = Vec::new();
        for state in [
            PromptState::Completed,
            PromptState::Error,
            PromptState::Completed,
        ] {
            let prompt = testing::prompt(&db, session.id).await;
            crate::prompts::Entity::update_many()
                .col_expr(crate::prompts::Column::State, Expr::value(state))
                .filter(crate::prompts::Column::Id.eq(prompt.id))
                .exec(&db)
                .await
                .unwrap();
            prompts.push(prompt.id);
        }
        let mut calls = Vec::new();
        for (n, prompt_id) in prompts.iter().enumerate() {
            let (row, _) = start(&db, call(session.id, *prompt_id, "call_1"), t0)
                .await
                .unwrap();
            // The third finished later than the cutoff.
            let at = t0 + Duration::seconds(if n == 2 { 100 } else { 10 });
            finish(
                &db,
                row.id,
                ToolCallState::Success,
                Some(json!({"n": n})),
                None,
                at,
            )
            .await
            .unwrap();
            calls.push(row.id);
        }
        let cutoff = t0 + Duration::seconds(50);
        let now = t0 + Duration::seconds(200);
        assert_eq!(archive_payloads(&db, cutoff, 100, now).await.unwrap(), 1);
        assert_eq!(
            archive_payloads(&db, cutoff, 100, now).await.unwrap(),
            0,
            "done once"
        );
        let hot = tool_calls::Entity::find_by_id(calls[0])
            .one(&db)
            .await
            .unwrap()
            .unwrap();
        assert_eq!((hot.tool_args, hot.tool_result), (Value::Null, None));
        assert_eq!(hot.archived_at, Some(now));
        assert_eq!(hot.state, ToolCallState::Success, "the rest stays");
        // Read through the prompt, the payload is whole again.
        let read = of_prompt(&db, prompts[0]).await.unwrap();
        assert_eq!(read[0].tool_args, json!({"title": "Read chapter 3"}));
        assert_eq!(read[0].tool_result, Some(json!({"n": 0})));
        // A resumable prompt's call and a recent one stay.
        for (prompt_id, n) in [(prompts[1], 1), (prompts[2], 2)] {
            let read = of_prompt(&db, prompt_id).await.unwrap();
            assert_eq!(read[0].archived_at, None);
            assert_eq!(read[0].tool_result, Some(json!({"n": n})));
        }
    });
}
