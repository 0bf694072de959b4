//! What quotas need from the database: the group a turn counts against (its tool's
//! group, with the group's materialized path for overrides on ancestors), and the
//! record of refused turns for the admin usage report.

use parley_protocol::error::Result;
use sea_orm::{
    ActiveValue::Set, ColumnTrait, ConnectionTrait, EntityTrait, JoinType, QueryFilter,
    QuerySelect, RelationTrait, prelude::DateTimeUtc,
};
use uuid::Uuid;

use crate::{error::Context, groups, quota_refusals, sessions, tools};

/// The tool of a turn and the group it belongs to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolScope {
    pub tool_id: Uuid,
    pub group_id: Uuid,
    /// The group's materialized path of ids (`/<root>/…/<group>/`).
    pub group_path: String,
}

/// The scope of the user's session (one query); `None` when the session is not theirs
/// or does not exist (the turn's own checks answer that).
pub async fn scope_of_session<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    session_id: Uuid,
) -> Result<Option<ToolScope>> {
    let row: Option<(Uuid, Uuid, String)> = sessions::Entity::find()
        .select_only()
        .column(sessions::Column::ToolId)
        .column(tools::Column::GroupId)
        .column(groups::Column::Path)
        .join(JoinType::InnerJoin, sessions::Relation::Tool.def())
        .join(JoinType::InnerJoin, tools::Relation::Group.def())
        .filter(sessions::Column::Id.eq(session_id))
        .filter(sessions::Column::UserId.eq(user_id))
        .into_tuple()
        .one(db)
        .await
        .context("reading a session's tool and group")?;
    Ok(row.map(|(tool_id, group_id, group_path)| ToolScope {
        tool_id,
        group_id,
        group_path,
    }))
}

/// The scope of a tool (one query).
pub async fn scope_of_tool<C: ConnectionTrait>(db: &C, tool_id: Uuid) -> Result<Option<ToolScope>> {
    let row: Option<(Uuid, String)> = tools::Entity::find()
        .select_only()
        .column(tools::Column::GroupId)
        .column(groups::Column::Path)
        .join(JoinType::InnerJoin, tools::Relation::Group.def())
        .filter(tools::Column::Id.eq(tool_id))
        .into_tuple()
        .one(db)
        .await
        .context("reading a tool's group")?;
    Ok(row.map(|(group_id, group_path)| ToolScope {
        tool_id,
        group_id,
        group_path,
    }))
}

/// One refused turn.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub user_id: Uuid,
    pub tool_id: Uuid,
    pub group_id: Uuid,
    pub model: String,
    pub limit_kind: String,
}

pub async fn record_refusal<C: ConnectionTrait>(
    db: &C,
    refusal: Refusal,
    now: DateTimeUtc,
) -> Result<()> {
    quota_refusals::Entity::insert(quota_refusals::ActiveModel {
        id: Set(Uuid::now_v7()),
        user_id: Set(refusal.user_id),
        tool_id: Set(refusal.tool_id),
        group_id: Set(refusal.group_id),
        model: Set(refusal.model),
        limit_kind: Set(refusal.limit_kind),
        created_at: Set(now),
    })
    .exec_without_returning(db)
    .await
    .context("recording a refused turn")?;
    Ok(())
}

/// Whether the session already has a prompt for this idempotency key (a replay, which
/// is no new turn).
pub async fn is_replay<C: ConnectionTrait>(db: &C, session_id: Uuid, key: &str) -> Result<bool> {
    use sea_orm::PaginatorTrait;
    let n = crate::prompts::Entity::find()
        .filter(crate::prompts::Column::SessionId.eq(session_id))
        .filter(crate::prompts::Column::IdempotencyKey.eq(key))
        .count(db)
        .await
        .context("looking up an idempotency key")?;
    Ok(n > 0)
}
