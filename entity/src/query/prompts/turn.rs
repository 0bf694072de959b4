//! Recording a new turn: a prompt in `created`, under the session's active-prompt policy.

use parley_protocol::error::{Error, ErrorCode, Result};
use parley_protocol::{config::SessionConfig, turn::TurnInput};
use sea_orm::{
    ActiveEnum, ActiveModelTrait, ColumnTrait, ConnectionTrait, DatabaseConnection, DbBackend,
    EntityTrait, FromQueryResult, IdenStatic, Iterable, QueryFilter, QueryTrait, Set, Statement,
    prelude::DateTimeUtc, sea_query::Expr,
};
use uuid::Uuid;

use super::{UNFINISHED, find, lease::mark_cancel_requested};
use crate::query::{
    batch::{self, Batch},
    conversation::{self, MessageRow},
};
use crate::{
    enums::{PromptState, SessionState},
    error::Context,
    prompts, sessions,
};

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
    /// The user message of the session the turn answers again (a regenerate), recorded
    /// on the prompt as its user message; `None`: the worker saves a new one.
    pub user_message_id: Option<Uuid>,
    pub input: TurnInput,
    /// The model the message asked for (already checked to be served).
    pub model: Option<String>,
    /// The deployment's default model, and every model it serves: a message that names
    /// none runs with the session's configured `model` (tool, organisation or
    /// assignment) when that is served, else with the default.
    pub default_model: String,
    pub served_models: std::sync::Arc<[String]>,
    pub idempotency_key: Option<String>,
    /// What the request asked, hashed (with an idempotency key): a key replayed with a
    /// different hash is refused.
    pub request_hash: Option<String>,
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
    /// The session as the turn found it (none for a replay), for the job to carry.
    pub session: Option<sessions::Model>,
}

impl Turn {
    /// A new prompt that took its idle session and runs now.
    fn taken(prompt: prompts::Model, session: sessions::Model) -> Self {
        Self {
            prompt,
            replayed: false,
            run_now: true,
            interrupted: None,
            session: Some(session),
        }
    }
}

/// Records a prompt for a new user message, applying the session's limits (a session
/// past `max_messages` or `max_session_duration_s` is completed with that end reason,
/// and the turn is refused: 409 `max_messages_reached` / `max_session_duration_reached`)
/// and its active-prompt policy.
pub async fn create_turn(db: &DatabaseConnection, turn: NewTurn, now: DateTimeUtc) -> Result<Turn> {
    crate::query::on_writer(
        db,
        crate::query::Urgency::FirstToken,
        move |db| async move { write_turn(&db, turn, now).await },
    )
    .await
}

async fn write_turn(db: &DatabaseConnection, turn: NewTurn, now: DateTimeUtc) -> Result<Turn> {
    // The fast path records a plain new message; an edit or a regenerate (rare) takes
    // the general one.
    let plain = turn.input.placement.is_none() && turn.user_message_id.is_none();
    if turn.idempotency_key.is_none()
        && plain
        && let Some(taken) = take_idle_session(db, &turn, now).await?
    {
        return Ok(taken);
    }
    let txn = crate::query::begin_write(db, "starting a turn").await?;
    let session = crate::query::sessions::get_owned(&txn, turn.user_id, turn.session_id).await?;
    if session.state != SessionState::Active {
        return Err(Error::conflict(
            ErrorCode::SessionCompleted,
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
        if prompt.request_hash.is_some() && prompt.request_hash != turn.request_hash {
            return Err(Error::invalid(
                ErrorCode::IdempotencyKeyReused,
                "this Idempotency-Key was sent with a different request; use a new key for a new request",
            ));
        }
        return Ok(Turn {
            prompt,
            replayed: true,
            run_now: false,
            interrupted: None,
            session: None,
        });
    }
    if let Some(limit) = crate::query::sessions::limit_reached(&session, now) {
        let ended = crate::query::sessions::end(&txn, session.id, limit.end_reason(), now).await?;
        txn.commit()
            .await
            .context("ending a session at its limit")?;
        // Only the turn that ended the session answers with the limit (its `session:end`
        // fires once); one that raced it finds the session completed.
        if ended.is_none() {
            return Err(Error::conflict(
                ErrorCode::SessionCompleted,
                "the session is completed",
            ));
        }
        return Err(Error::conflict(
            limit.code(),
            format!(
                "the session reached its `{}` limit and is completed; open a new session",
                match limit {
                    crate::query::sessions::SessionLimit::MaxMessages =>
                        SessionConfig::MAX_MESSAGES_KEY,
                    crate::query::sessions::SessionLimit::MaxDuration =>
                        SessionConfig::MAX_SESSION_DURATION_S_KEY,
                }
            ),
        ));
    }
    let model = choose_model(&turn, &session);
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
                    ErrorCode::PromptActive,
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
    let prompt = insert_prompt(&txn, Uuid::now_v7(), &session, &turn, model, now).await?;
    let run_now = active.is_none();
    if run_now {
        let taken = sessions::Entity::update_many()
            .col_expr(sessions::Column::ActivePromptId, Expr::value(prompt.id))
            .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
            .filter(sessions::Column::Id.eq(session.id))
            .filter(sessions::Column::DeletedAt.is_null()) // a delete after the read wins
            .filter(match session.active_prompt_id {
                Some(previous) => sessions::Column::ActivePromptId.eq(previous),
                None => sessions::Column::ActivePromptId.is_null(),
            })
            .exec(&txn)
            .await
            .context("making the prompt the session's active one")?;
        if taken.rows_affected == 0 {
            return Err(Error::conflict(
                ErrorCode::PromptActive,
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
        session: Some(session),
    })
}

/// The common case in two statements: the session is the user's, active, idle and within
/// its limits — take it (a guarded `UPDATE … RETURNING` that also reads it) and record the
/// prompt. `None` (nothing written) for everything else: the general path decides.
async fn take_idle_session(
    db: &DatabaseConnection,
    turn: &NewTurn,
    now: DateTimeUtc,
) -> Result<Option<Turn>> {
    if db.get_database_backend() == DbBackend::Postgres {
        return take_idle_session_pg(db, turn, now).await;
    }
    if crate::query::owns_connection(db) {
        return take_idle_session_sqlite(db, turn, now).await;
    }
    let txn = crate::query::begin_write(db, "starting a turn").await?;
    let id = Uuid::now_v7();
    let Some(session) = take_session(id, turn, now)
        .exec_with_returning(&txn)
        .await
        .context("taking an idle session")?
        .into_iter()
        .next()
    else {
        return Ok(None);
    };
    if crate::query::sessions::limit_reached(&session, now).is_some() {
        // Rolled back on drop; the general path ends the session with its reason.
        return Ok(None);
    }
    let model = choose_model(turn, &session);
    let prompt = insert_prompt(&txn, id, &session, turn, model, now).await?;
    txn.commit().await.context("committing a turn")?;
    Ok(Some(Turn::taken(prompt, session)))
}

/// The guarded `UPDATE` that makes prompt `id` the active one of `turn`'s session when
/// the session is the user's, active, idle and not deleted.
fn take_session(
    id: Uuid,
    turn: &NewTurn,
    now: DateTimeUtc,
) -> sea_orm::UpdateMany<sessions::Entity> {
    sessions::Entity::update_many()
        .col_expr(sessions::Column::ActivePromptId, Expr::value(id))
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
        .filter(sessions::Column::Id.eq(turn.session_id))
        .filter(sessions::Column::UserId.eq(turn.user_id))
        .filter(sessions::Column::State.eq(SessionState::Active))
        .filter(sessions::Column::ActivePromptId.is_null())
        .filter(sessions::Column::DeletedAt.is_null())
}

/// [`take_idle_session`] on SQLite in two round trips instead of four: `BEGIN` with the
/// session's guarded `UPDATE … RETURNING`; then, when the session is within its limits,
/// the prompt's `INSERT` with `COMMIT` (`db` is the writer's own connection:
/// [`crate::query::batch`]).
pub(crate) async fn take_idle_session_sqlite(
    db: &DatabaseConnection,
    turn: &NewTurn,
    now: DateTimeUtc,
) -> Result<Option<Turn>> {
    let id = Uuid::now_v7();
    let mut take = take_session(id, turn, now).into_query();
    take.returning_all();
    batch::transaction(db, async {
        let taken = Batch::begin()
            .then(Some(&take))
            .run(db, "taking an idle session")
            .await?;
        let Some(row) = taken.first() else {
            return Ok(None);
        };
        let session = sessions::Model::from_query_result(row, "").context("reading a session")?;
        if crate::query::sessions::limit_reached(&session, now).is_some() {
            // Rolled back; the general path ends the session with its reason.
            return Ok(None);
        }
        let model = choose_model(turn, &session);
        let mut insert =
            prompts::Entity::insert(new_prompt(id, &session, turn, model, now)).into_query();
        insert.returning_all();
        let recorded = Batch::default()
            .then(Some(&insert))
            .commit()
            .run(db, "recording a prompt")
            .await?;
        let row = recorded
            .first()
            .ok_or_else(|| Error::internal("recording a prompt", "the insert returned no row"))?;
        let prompt = prompts::Model::from_query_result(row, "").context("reading a prompt")?;
        Ok(Some(Turn::taken(prompt, session)))
    })
    .await
}

/// [`take_idle_session`] on PostgreSQL in one statement: the session's `UPDATE` and the
/// prompt's `INSERT` as data-modifying CTEs, one round trip instead of four (`BEGIN`,
/// two statements, `COMMIT`). The session limits are checked in SQL by a condition that
/// holds only when [`crate::query::sessions::limit_reached`] finds none (a session near
/// or past a limit, or with an odd limit value, takes the general path, which decides);
/// the model is [`choose_model`]'s rule in SQL.
async fn take_idle_session_pg(
    db: &DatabaseConnection,
    turn: &NewTurn,
    now: DateTimeUtc,
) -> Result<Option<Turn>> {
    let id = Uuid::now_v7();
    // The text is the same for every turn: built once.
    static SQL: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
        // The keys of the options read here are the config type's own names for them.
        let (max_messages, max_duration, model) = (
            SessionConfig::MAX_MESSAGES_KEY,
            SessionConfig::MAX_SESSION_DURATION_S_KEY,
            SessionConfig::MODEL_KEY,
        );
        format!(
            r#"WITH s AS (
        UPDATE sessions SET active_prompt_id = $1, last_activity_at = $2
        WHERE id = $3 AND user_id = $4 AND state = $5 AND active_prompt_id IS NULL
          AND deleted_at IS NULL
          AND (jsonb_typeof(config -> '{max_messages}') IS DISTINCT FROM 'number'
               OR message_count + 2 <= (config ->> '{max_messages}')::numeric)
          AND (jsonb_typeof(config -> '{max_duration}') IS DISTINCT FROM 'number'
               OR (config ->> '{max_duration}')::numeric
                  > extract(epoch FROM $2 - started_at))
        RETURNING *
    ), p AS (
        INSERT INTO prompts (id, session_id, state, attempt, model, input, created_at)
        SELECT $1, s.id, $6, 0,
            COALESCE($7, CASE
                WHEN jsonb_typeof(s.config -> '{model}') = 'string'
                    AND jsonb_exists($8, s.config ->> '{model}') THEN s.config ->> '{model}'
                ELSE $9 END),
            $10, $2
        FROM s
        RETURNING *
    )
    SELECT {}, {} FROM s, p"#,
            prefixed::<sessions::Entity>("s"),
            prefixed::<prompts::Entity>("p"),
        )
    });
    let input = serde_json::to_value(&turn.input).map_err(|err| {
        Error::internal(
            "recording a prompt",
            format!("encoding the turn's input: {err}"),
        )
    })?;
    let served = serde_json::Value::from(turn.served_models.to_vec());
    let statement = Statement::from_sql_and_values(
        DbBackend::Postgres,
        SQL.as_str(),
        [
            id.into(),
            now.into(),
            turn.session_id.into(),
            turn.user_id.into(),
            SessionState::Active.to_value().into(),
            PromptState::Created.to_value().into(),
            turn.model.clone().into(),
            served.into(),
            turn.default_model.clone().into(),
            input.into(),
        ],
    );
    let Some(row) = db
        .query_one_raw(statement)
        .await
        .context("taking an idle session")?
    else {
        return Ok(None);
    };
    let session = sessions::Model::from_query_result(&row, "s_").context("reading a session")?;
    let prompt = prompts::Model::from_query_result(&row, "p_").context("reading a prompt")?;
    // The same rule in Rust: it logs the warning about a configured model not served
    // here, and must agree with the SQL.
    let model = choose_model(turn, &session);
    debug_assert_eq!(prompt.model.as_deref(), Some(model.as_str()));
    Ok(Some(Turn::taken(prompt, session)))
}

/// `alias."column" AS "alias_column", …` for every column of `E`, so one row can carry
/// several tables' rows (read back with `FromQueryResult::from_query_result(row, "alias_")`).
pub(super) fn prefixed<E: EntityTrait>(alias: &str) -> String {
    E::Column::iter()
        .map(|column| {
            let name = column.as_str();
            format!(r#"{alias}."{name}" AS "{alias}_{name}""#)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The model of a message that names none: the session's configured `model` when it is
/// served, else the deployment's default.
fn choose_model(turn: &NewTurn, session: &sessions::Model) -> String {
    turn.model
        .clone()
        .unwrap_or_else(|| match session.config.model.as_deref() {
            Some(configured) if turn.served_models.iter().any(|m| m == configured) => {
                configured.to_owned()
            }
            Some(configured) => {
                tracing::warn!(
                    model = configured,
                    "the session's configured model is not served here; using the default"
                );
                turn.default_model.clone()
            }
            None => turn.default_model.clone(),
        })
}

async fn insert_prompt<C: sea_orm::ConnectionTrait>(
    db: &C,
    id: Uuid,
    session: &sessions::Model,
    turn: &NewTurn,
    model: String,
    now: DateTimeUtc,
) -> Result<prompts::Model> {
    new_prompt(id, session, turn, model, now)
        .insert(db)
        .await
        .context("recording a prompt")
}

/// A new prompt of `turn` on `session`, in `created`.
fn new_prompt(
    id: Uuid,
    session: &sessions::Model,
    turn: &NewTurn,
    model: String,
    now: DateTimeUtc,
) -> prompts::ActiveModel {
    prompts::ActiveModel {
        id: Set(id),
        session_id: Set(session.id),
        state: Set(PromptState::Created),
        attempt: Set(0),
        model: Set(Some(model)),
        idempotency_key: Set(turn.idempotency_key.clone()),
        request_hash: Set(turn.request_hash.clone()),
        input: Set(Some(turn.input.clone())),
        user_message_id: Set(turn.user_message_id),
        created_at: Set(now),
        ..Default::default()
    }
}

/// Appends a turn's user message to `session_id` and names it on the prompt, in one
/// transaction (so a repeated attempt finds and reuses it).
pub async fn save_user_message(
    db: &DatabaseConnection,
    id: Uuid,
    session_id: Uuid,
    row: &MessageRow,
    now: DateTimeUtc,
) -> Result<()> {
    let txn = crate::query::begin_write(db, "starting to save a user message").await?;
    conversation::append_messages(&txn, session_id, std::slice::from_ref(row), now).await?;
    set_user_message(&txn, id, row.id).await?;
    txn.commit().await.context("committing a user message")
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
