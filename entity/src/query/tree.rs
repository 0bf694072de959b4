//! The message tree of a session (DESIGN §13): each message follows its `parent_id`;
//! siblings are edits of a user message or other answers to one, in creation (`seq`)
//! order. A branch is a path from a first message down to a leaf; the session shows and
//! continues the one through its `active_leaf_id`.
//!
//! The walks are recursive CTEs that PostgreSQL and SQLite both run: up from a message to
//! its first (context assembly reads at most as many as it sends), and down from a
//! message along the newest child at each step (the branch a switch lands on).

use std::collections::HashMap;

use parley_protocol::error::{Error, ErrorCode, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DbBackend, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    Statement, Value, prelude::DateTimeUtc, sea_query::Expr,
};
use uuid::Uuid;

use crate::{error::Context, messages, sessions};

/// `$1`, `$2`, … as each backend numbers parameters (SQLite: `?1`, `?2`, …).
pub(crate) fn statement(backend: DbBackend, sql: &str, values: Vec<Value>) -> Statement {
    let sql = match backend {
        DbBackend::Sqlite => sql.replace('$', "?"),
        _ => sql.to_owned(),
    };
    Statement::from_sql_and_values(backend, sql, values)
}

/// `message_id` and its ancestors, newest first, at most `limit` of them (the history a
/// turn that continues from `message_id` sends the model).
pub async fn ancestry<C: ConnectionTrait>(
    db: &C,
    message_id: Uuid,
    limit: u64,
) -> Result<Vec<messages::Model>> {
    if limit == 0 {
        return Ok(Vec::new());
    }
    let limit = i64::try_from(limit).unwrap_or(i64::MAX);
    let sql = "WITH RECURSIVE up(id, parent_id, depth) AS ( \
            SELECT id, parent_id, 1 FROM messages WHERE id = $1 \
            UNION ALL \
            SELECT m.id, m.parent_id, up.depth + 1 FROM messages m \
            JOIN up ON m.id = up.parent_id WHERE up.depth < $2 \
        ) \
        SELECT messages.* FROM messages JOIN up ON messages.id = up.id \
        ORDER BY messages.seq DESC";
    let backend = db.get_database_backend();
    messages::Entity::find()
        .from_raw_sql(statement(
            backend,
            sql,
            vec![message_id.into(), limit.into()],
        ))
        .all(db)
        .await
        .context("reading a branch's history")
}

/// The branch through `message_id` of `session_id`, oldest first: its ancestors, itself,
/// and below it the newest child at each step down to a leaf.
pub async fn branch<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    message_id: Uuid,
) -> Result<Vec<messages::Model>> {
    let mut above = ancestry(db, message_id, u64::MAX).await?;
    above.reverse();
    let below = descent(db, session_id, message_id).await?;
    above.extend(below.into_iter().skip(1));
    Ok(above)
}

/// `message_id` and below it the newest child at each step down to a leaf, oldest first.
async fn descent<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    message_id: Uuid,
) -> Result<Vec<messages::Model>> {
    let sql = "WITH RECURSIVE down(id) AS ( \
            SELECT id FROM messages WHERE id = $1 AND session_id = $2 \
            UNION ALL \
            SELECT c.id FROM down JOIN messages c ON c.session_id = $2 AND c.parent_id = down.id \
            WHERE c.seq = (SELECT MAX(o.seq) FROM messages o \
                WHERE o.session_id = $2 AND o.parent_id = down.id) \
        ) \
        SELECT messages.* FROM messages JOIN down ON messages.id = down.id \
        ORDER BY messages.seq";
    let backend = db.get_database_backend();
    messages::Entity::find()
        .from_raw_sql(statement(
            backend,
            sql,
            vec![message_id.into(), session_id.into()],
        ))
        .all(db)
        .await
        .context("reading a branch")
}

/// The ids of each message's siblings (itself included), by the parent they share, in
/// creation order: the children of every parent among `shown` (`None`: the session's
/// first messages).
pub async fn siblings<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    shown: &[messages::Model],
) -> Result<HashMap<Option<Uuid>, Vec<Uuid>>> {
    if shown.is_empty() {
        return Ok(HashMap::new());
    }
    let parents: Vec<Uuid> = shown.iter().filter_map(|m| m.parent_id).collect();
    let mut under = sea_orm::Condition::any();
    if !parents.is_empty() {
        under = under.add(messages::Column::ParentId.is_in(parents));
    }
    if shown.iter().any(|m| m.parent_id.is_none()) {
        under = under.add(messages::Column::ParentId.is_null());
    }
    let rows: Vec<(Uuid, Option<Uuid>)> = messages::Entity::find()
        .select_only()
        .columns([messages::Column::Id, messages::Column::ParentId])
        .filter(messages::Column::SessionId.eq(session_id))
        .filter(under)
        .order_by_asc(messages::Column::Seq)
        .into_tuple()
        .all(db)
        .await
        .context("reading the siblings of messages")?;
    let mut by_parent: HashMap<Option<Uuid>, Vec<Uuid>> = HashMap::new();
    for (id, parent) in rows {
        by_parent.entry(parent).or_default().push(id);
    }
    Ok(by_parent)
}

/// The refusal of a body that names a message the session does not have (the session
/// itself is there: 422, not 404).
pub fn not_in_session() -> Error {
    Error::invalid(
        ErrorCode::MessageNotFound,
        "no message of this session has that id",
    )
}

/// A message of `session_id` (404 `message` for any other id).
pub async fn message_in<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    message_id: Uuid,
) -> Result<messages::Model> {
    messages::Entity::find_by_id(message_id)
        .filter(messages::Column::SessionId.eq(session_id))
        .one(db)
        .await
        .context("reading a message of a session")?
        .ok_or(Error::not_found("message"))
}

/// Makes the branch through `message_id` the active one of `session_id`: the session's
/// active leaf becomes the leaf below it (the newest child at each step). Refused with
/// 409 `prompt_active` while a turn of the session runs (its answer would land on the
/// branch it started from), 422 `message_not_found` for a message of no branch of it.
/// The caller checked that the user owns the session.
pub async fn switch<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
    message_id: Uuid,
    now: DateTimeUtc,
) -> Result<sessions::Model> {
    let path = descent(db, session_id, message_id).await?;
    let leaf = path.last().ok_or_else(not_in_session)?.id;
    let switched = sessions::Entity::update_many()
        .col_expr(sessions::Column::ActiveLeafId, Expr::value(leaf))
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
        .filter(sessions::Column::Id.eq(session_id))
        .filter(sessions::Column::ActivePromptId.is_null())
        .exec_with_returning(db)
        .await
        .context("switching a session's branch")?;
    switched.into_iter().next().ok_or_else(|| {
        Error::conflict(
            ErrorCode::PromptActive,
            "a turn of this session is running; switch branches when it has ended",
        )
    })
}

#[cfg(test)]
mod tests;
