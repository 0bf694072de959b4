//! The rows behind the export of conversations (`GET /v1/admin/exports/conversations`),
//! a page of sessions at a time, so a large range is never held whole: [`page`] reads
//! the next sessions after a cursor (keyset on `sessions.id`) and, for all of them at
//! once, the messages of their active branches, the function calls of their answers and
//! the system prompt they were answered under — a handful of statements per page,
//! whatever its size. `parley_service::feedback::export` writes each conversation out.
//!
//! Only what is stored is read: a message's `content` is the text as saved (after the
//! modules: redacted where a redactor rewrote it, `[blocked]` where one blocked it); the
//! originals a blocking module kept (`message_audit`) are never read here.
//!
//! Filters: sessions started in the window, of a tool; with an answer on the active
//! branch by a model, or rated up or down by anyone. The model and rating filters narrow
//! the sessions in SQL (`EXISTS`) and then keep those whose *active branch* has such an
//! answer, since only that branch is exported.

use std::collections::{BTreeMap, HashMap, HashSet};

use parley_protocol::config::SessionConfig;
use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, FromQueryResult, QueryFilter, QueryOrder,
    QuerySelect,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, Query},
};
use serde_json::Value;
use uuid::Uuid;

use crate::{
    blocks,
    enums::{BlockType, FeedbackRating, MessageRole, ToolCallState},
    error::Context,
    message_feedback, prompts,
    query::{metrics::Window, tool_calls::restore_archived, tree::statement},
    sessions, tool_calls,
};

/// Which conversations are exported.
#[derive(Debug, Clone, Default)]
pub struct ExportFilter {
    /// On `sessions.started_at`.
    pub window: Window,
    pub tool_id: Option<Uuid>,
    /// An answer on the active branch by this model.
    pub model: Option<String>,
    /// An answer on the active branch rated so (by anyone).
    pub rating: Option<FeedbackRating>,
}

/// A message of an active branch, as stored.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct BranchMessage {
    pub id: Uuid,
    pub session_id: Uuid,
    pub seq: i32,
    pub role: MessageRole,
    pub content: String,
    pub prompt_id: Option<Uuid>,
}

/// One function call of an answer.
#[derive(Debug, Clone, PartialEq)]
pub struct ExportCall {
    /// The call's id as the model gave it (`tool_use_id`).
    pub id: String,
    pub name: String,
    /// The arguments as recorded (restored from `tool_call_archive` when archived); a
    /// string when the model's arguments were not JSON.
    pub arguments: Value,
    /// What the model was told: the recorded result, or the error.
    pub output: CallOutput,
}

/// What a call answered the model.
#[derive(Debug, Clone, PartialEq)]
pub enum CallOutput {
    /// The recorded result (`tool_calls.tool_result`).
    Result(Value),
    /// A call that failed without a result: its error message.
    Error(String),
    /// A call whose row is gone or unfinished: the text its block kept.
    Shown(String),
}

/// One conversation: a session's active branch with what its answers called.
#[derive(Debug, Clone, PartialEq)]
pub struct Conversation {
    pub session_id: Uuid,
    /// The session's resolved configuration (the functions it offered).
    pub config: SessionConfig,
    /// The system prompt of the branch's first answer that had one.
    pub system: Option<String>,
    /// The active branch, first message first.
    pub messages: Vec<BranchMessage>,
    /// Each answer's calls by message id, by their `[[tool:N]]` marker's N.
    pub calls: HashMap<Uuid, BTreeMap<u32, ExportCall>>,
}

/// A page of conversations, and the cursor after it (`None`: it was the last).
#[derive(Debug, Clone, PartialEq)]
pub struct ExportPage {
    pub conversations: Vec<Conversation>,
    pub next: Option<Uuid>,
}

/// The next `limit` sessions after `after` that match `filter` (by id), as
/// conversations. A page may hold fewer (the branch filters drop some) and still have a
/// `next`.
pub async fn page<C: ConnectionTrait>(
    db: &C,
    filter: &ExportFilter,
    after: Option<Uuid>,
    limit: u64,
) -> Result<ExportPage> {
    let sessions = sessions_after(db, filter, after, limit).await?;
    let next = (sessions.len() as u64 == limit && limit > 0)
        .then(|| sessions.last().map(|s| s.0))
        .flatten();
    let leaves: Vec<Uuid> = sessions.iter().map(|s| s.1).collect();
    let branch = branches(db, &leaves).await?;
    let answers: Vec<&BranchMessage> = branch
        .iter()
        .filter(|m| m.role == MessageRole::Assistant)
        .collect();
    let prompt_of: HashMap<Uuid, Uuid> = answers
        .iter()
        .filter_map(|m| Some((m.id, m.prompt_id?)))
        .collect();
    let answered = answered_by(db, &prompt_of).await?;
    let calls = calls_of(db, &prompt_of).await?;
    let rated = match filter.rating {
        Some(rating) => Some(rated(db, &sessions, rating).await?),
        None => None,
    };

    let mut by_session: HashMap<Uuid, Vec<BranchMessage>> = HashMap::new();
    for message in branch {
        by_session
            .entry(message.session_id)
            .or_default()
            .push(message);
    }
    let mut conversations = Vec::new();
    for (session_id, _, config) in sessions {
        let Some(messages) = by_session.remove(&session_id) else {
            continue;
        };
        let keep_model = filter.model.as_deref().is_none_or(|model| {
            messages.iter().any(|m| {
                m.prompt_id
                    .and_then(|p| answered.models.get(&p))
                    .is_some_and(|answered| answered.as_deref() == Some(model))
            })
        });
        let keep_rating = rated
            .as_ref()
            .is_none_or(|rated| messages.iter().any(|m| rated.contains(&m.id)));
        if !(keep_model && keep_rating) {
            continue;
        }
        let calls = messages
            .iter()
            .filter_map(|m| Some((m.id, calls.get(&m.id)?.clone())))
            .collect();
        conversations.push(Conversation {
            session_id,
            config,
            system: answered.system.get(&session_id).cloned(),
            messages,
            calls,
        });
    }
    Ok(ExportPage {
        conversations,
        next,
    })
}

/// Sessions after `after` (by id) matching `filter`, with a message: (id, active leaf,
/// config).
async fn sessions_after<C: ConnectionTrait>(
    db: &C,
    filter: &ExportFilter,
    after: Option<Uuid>,
    limit: u64,
) -> Result<Vec<(Uuid, Uuid, SessionConfig)>> {
    use sessions::Column as S;
    let mut query = sessions::Entity::find()
        .select_only()
        .columns([S::Id, S::ActiveLeafId, S::Config])
        .filter(S::DeletedAt.is_null())
        .filter(S::ActiveLeafId.is_not_null());
    if let Some(after) = after {
        query = query.filter(S::Id.gt(after));
    }
    if let Some(from) = filter.window.from {
        query = query.filter(S::StartedAt.gte(from));
    }
    if let Some(to) = filter.window.to {
        query = query.filter(S::StartedAt.lt(to));
    }
    if let Some(tool_id) = filter.tool_id {
        query = query.filter(S::ToolId.eq(tool_id));
    }
    if let Some(model) = &filter.model {
        let answered = Query::select()
            .expr(Expr::val(1))
            .from(prompts::Entity)
            .and_where(
                Expr::col((prompts::Entity, prompts::Column::SessionId))
                    .equals((sessions::Entity, S::Id)),
            )
            .and_where(Expr::col((prompts::Entity, prompts::Column::Model)).eq(model.as_str()))
            .to_owned();
        query = query.filter(Expr::exists(answered));
    }
    if let Some(rating) = filter.rating {
        use message_feedback::Column as F;
        let rated = Query::select()
            .expr(Expr::val(1))
            .from(message_feedback::Entity)
            .and_where(
                Expr::col((message_feedback::Entity, F::SessionId))
                    .equals((sessions::Entity, S::Id)),
            )
            .and_where(Expr::col((message_feedback::Entity, F::Rating)).eq(rating.as_str()))
            .to_owned();
        query = query.filter(Expr::exists(rated));
    }
    let rows: Vec<(Uuid, Option<Uuid>, SessionConfig)> = query
        .order_by_asc(S::Id)
        .limit(limit)
        .into_tuple()
        .all(db)
        .await
        .context("reading a page of sessions to export")?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, leaf, config)| Some((id, leaf?, config)))
        .collect())
}

/// The branches ending at `leaves` (one per session), by session, first message first:
/// one recursive walk up from all of them.
async fn branches<C: ConnectionTrait>(db: &C, leaves: &[Uuid]) -> Result<Vec<BranchMessage>> {
    if leaves.is_empty() {
        return Ok(Vec::new());
    }
    let placeholders: Vec<String> = (1..=leaves.len()).map(|i| format!("${i}")).collect();
    let sql = format!(
        "WITH RECURSIVE up(id, parent_id) AS ( \
            SELECT id, parent_id FROM messages WHERE id IN ({}) \
            UNION ALL \
            SELECT m.id, m.parent_id FROM messages m JOIN up ON m.id = up.parent_id \
        ) \
        SELECT messages.id, messages.session_id, messages.seq, messages.role, \
            messages.content, messages.prompt_id \
        FROM messages JOIN up ON messages.id = up.id \
        ORDER BY messages.session_id, messages.seq",
        placeholders.join(", ")
    );
    let values = leaves.iter().map(|id| (*id).into()).collect();
    let backend = db.get_database_backend();
    BranchMessage::find_by_statement(statement(backend, &sql, values))
        .all(db)
        .await
        .context("reading the active branches to export")
}

/// What the export needs of the answers' prompts.
#[derive(Debug, Default)]
struct Answered {
    /// The model of each prompt (`None`: not recorded).
    models: HashMap<Uuid, Option<String>>,
    /// Each session's first system prompt among these prompts.
    system: HashMap<Uuid, String>,
}

/// The models of the answers' prompts, and each session's first system prompt among
/// them (two statements: the second reads only the texts it keeps).
async fn answered_by<C: ConnectionTrait>(
    db: &C,
    prompt_of: &HashMap<Uuid, Uuid>,
) -> Result<Answered> {
    use prompts::Column as P;
    if prompt_of.is_empty() {
        return Ok(Answered::default());
    }
    let rows: Vec<(Uuid, Uuid, DateTimeUtc, Option<String>, bool)> = prompts::Entity::find()
        .select_only()
        .columns([P::Id, P::SessionId, P::CreatedAt, P::Model])
        .column_as(Expr::col(P::SystemMessage).is_not_null(), "has_system")
        .filter(P::Id.is_in(prompt_of.values().copied()))
        .into_tuple()
        .all(db)
        .await
        .context("reading the prompts of answers to export")?;
    let mut first: HashMap<Uuid, (DateTimeUtc, Uuid)> = HashMap::new();
    for (id, session_id, at, _, has_system) in &rows {
        if !has_system {
            continue;
        }
        let earliest = first.entry(*session_id).or_insert((*at, *id));
        if (*at, *id) < *earliest {
            *earliest = (*at, *id);
        }
    }
    let models = rows
        .into_iter()
        .map(|(id, _, _, model, _)| (id, model))
        .collect();
    let chosen: Vec<Uuid> = first.values().map(|(_, id)| *id).collect();
    let texts: Vec<(Uuid, Uuid, Option<String>)> = if chosen.is_empty() {
        Vec::new()
    } else {
        prompts::Entity::find()
            .select_only()
            .columns([P::Id, P::SessionId, P::SystemMessage])
            .filter(P::Id.is_in(chosen))
            .into_tuple()
            .all(db)
            .await
            .context("reading the system prompts of conversations to export")?
    };
    let system = texts
        .into_iter()
        .filter_map(|(_, session_id, text)| Some((session_id, text?)))
        .collect();
    Ok(Answered { models, system })
}

/// The function calls of each answer (by message id), by their marker's N: the answer's
/// `tool_call` blocks say which call each N is (their metadata), the `tool_calls` rows
/// what it was called with and answered.
async fn calls_of<C: ConnectionTrait>(
    db: &C,
    prompt_of: &HashMap<Uuid, Uuid>,
) -> Result<HashMap<Uuid, BTreeMap<u32, ExportCall>>> {
    use blocks::Column as B;
    if prompt_of.is_empty() {
        return Ok(HashMap::new());
    }
    let markers: Vec<(Option<Uuid>, Value, String)> = blocks::Entity::find()
        .select_only()
        .columns([B::MessageId, B::Metadata, B::Content])
        .filter(B::MessageId.is_in(prompt_of.keys().copied()))
        .filter(B::Type.eq(BlockType::ToolCall))
        .into_tuple()
        .all(db)
        .await
        .context("reading the function calls of answers to export")?;
    if markers.is_empty() {
        return Ok(HashMap::new());
    }
    let with_calls: HashSet<Uuid> = markers
        .iter()
        .filter_map(|(m, ..)| prompt_of.get(&(*m)?).copied())
        .collect();
    let rows = tool_calls::Entity::find()
        .filter(tool_calls::Column::PromptId.is_in(with_calls))
        .all(db)
        .await
        .context("reading the recorded calls of answers to export")?;
    let rows = restore_archived(db, rows).await?;
    let mut calls: HashMap<Uuid, BTreeMap<u32, ExportCall>> = HashMap::new();
    for (message_id, meta, shown) in markers {
        let Some(message_id) = message_id else {
            continue;
        };
        let Some(n) = meta["n"].as_u64().and_then(|n| u32::try_from(n).ok()) else {
            continue;
        };
        let id = meta["tool_use_id"].as_str().unwrap_or_default().to_owned();
        let prompt_id = prompt_of.get(&message_id).copied();
        let row = rows
            .iter()
            .find(|r| Some(r.prompt_id) == prompt_id && r.api_tool_call_id == id);
        let call = match row {
            Some(row) => ExportCall {
                id,
                name: row.tool_name.clone(),
                arguments: row.tool_args.clone(),
                output: output_of(row, shown),
            },
            None => ExportCall {
                id,
                name: meta["tool"].as_str().unwrap_or_default().to_owned(),
                arguments: meta["input"].clone(),
                output: CallOutput::Shown(shown),
            },
        };
        calls.entry(message_id).or_default().insert(n, call);
    }
    Ok(calls)
}

/// What a recorded call answered the model.
fn output_of(row: &tool_calls::Model, shown: String) -> CallOutput {
    match (&row.tool_result, row.state) {
        (Some(result), _) if !result.is_null() => CallOutput::Result(result.clone()),
        (_, ToolCallState::Error | ToolCallState::Canceled) => match &row.error_message {
            Some(message) => CallOutput::Error(message.clone()),
            None => CallOutput::Shown(shown),
        },
        _ => CallOutput::Shown(shown),
    }
}

/// The messages of these sessions rated `rating` (by anyone).
async fn rated<C: ConnectionTrait>(
    db: &C,
    sessions: &[(Uuid, Uuid, SessionConfig)],
    rating: FeedbackRating,
) -> Result<HashSet<Uuid>> {
    use message_feedback::Column as F;
    if sessions.is_empty() {
        return Ok(HashSet::new());
    }
    let ids: Vec<Uuid> = message_feedback::Entity::find()
        .select_only()
        .column(F::MessageId)
        .filter(F::SessionId.is_in(sessions.iter().map(|s| s.0)))
        .filter(F::Rating.eq(rating))
        .into_tuple()
        .all(db)
        .await
        .context("reading the ratings of conversations to export")?;
    Ok(ids.into_iter().collect())
}
