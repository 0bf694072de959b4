//! The prompts' state distribution and the prompts that look stuck: not finished long
//! after they were created (a dead worker the reaper has not caught up with, a queue
//! that lost a job).

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, JoinType, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, RelationTrait,
    prelude::DateTimeUtc,
    sea_query::{Expr, Func},
};
use uuid::Uuid;

use super::Window;
use crate::{enums::PromptState, error::Context, prompts, sessions, tools, users};

/// The states a prompt is not finished in.
pub const UNFINISHED: [PromptState; 3] = [
    PromptState::Created,
    PromptState::InProgress,
    PromptState::WaitingForTools,
];

/// A prompt that is not finished (stuck: although it is older than the threshold).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckPrompt {
    pub id: Uuid,
    pub session_id: Uuid,
    /// The session's user and tool and their names (`None` when gone).
    pub user_id: Option<Uuid>,
    pub user_name: Option<String>,
    pub tool_id: Option<Uuid>,
    pub tool_name: Option<String>,
    pub state: PromptState,
    pub created_at: DateTimeUtc,
}

/// How many prompts are in each state, and the stuck ones.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptStats {
    /// Every state of [`PromptState::ALL`], in that order, with its count (0 included).
    pub by_state: Vec<(PromptState, u64)>,
    /// How many unfinished prompts were created before the threshold.
    pub stuck_count: u64,
    /// The oldest of them, at most the number asked for, oldest first.
    pub stuck: Vec<StuckPrompt>,
    /// How many prompts are unfinished.
    pub in_flight_count: u64,
    /// The oldest unfinished prompts, at most the number asked for, oldest first.
    pub in_flight: Vec<StuckPrompt>,
}

/// Counts the prompts created in `window` by state (from the index on `created_at`,
/// `state`); prompts unfinished and created before `stuck_before` are stuck, and the
/// `max_listed` oldest of them and of all unfinished prompts are listed (from the
/// partial index of unfinished prompts, whatever the window).
pub async fn prompt_stats<C: ConnectionTrait>(
    db: &C,
    window: Window,
    stuck_before: DateTimeUtc,
    max_listed: u64,
) -> Result<PromptStats> {
    let mut counted = prompts::Entity::find();
    if let Some(from) = window.from {
        counted = counted.filter(prompts::Column::CreatedAt.gte(from));
    }
    if let Some(to) = window.to {
        counted = counted.filter(prompts::Column::CreatedAt.lt(to));
    }
    // `COUNT(*)`, not of a column: the (`created_at`, `state`) index answers alone.
    let counts: Vec<(PromptState, i64)> = counted
        .select_only()
        .column(prompts::Column::State)
        .column_as(Expr::cust("COUNT(*)"), "count")
        .group_by(prompts::Column::State)
        .into_tuple()
        .all(db)
        .await
        .context("counting prompts by state")?;
    let by_state = PromptState::ALL
        .iter()
        .map(|state| {
            let count = counts
                .iter()
                .find(|(s, _)| s == state)
                .map_or(0, |(_, n)| u64::try_from(*n).unwrap_or(0));
            (*state, count)
        })
        .collect();
    let stuck_query = prompts::Entity::find()
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .filter(prompts::Column::CreatedAt.lt(stuck_before));
    let stuck_count = stuck_query
        .clone()
        .count(db)
        .await
        .context("counting stuck prompts")?;
    let stuck = listed(db, stuck_query, max_listed).await?;
    let in_flight_query = prompts::Entity::find().filter(prompts::Column::State.is_in(UNFINISHED));
    let in_flight_count = in_flight_query
        .clone()
        .count(db)
        .await
        .context("counting prompts in flight")?;
    let in_flight = listed(db, in_flight_query, max_listed).await?;
    Ok(PromptStats {
        by_state,
        stuck_count,
        stuck,
        in_flight_count,
        in_flight,
    })
}

/// A session's id, user and tool ids, and the user's and tool's names.
type Owner = (Uuid, Uuid, Uuid, Option<String>, Option<String>);

/// The `max` oldest prompts of `query`, with their sessions' user and tool names.
async fn listed<C: ConnectionTrait>(
    db: &C,
    query: sea_orm::Select<prompts::Entity>,
    max: u64,
) -> Result<Vec<StuckPrompt>> {
    let rows = query
        .order_by_asc(prompts::Column::CreatedAt)
        .order_by_asc(prompts::Column::Id)
        .limit(max)
        .all(db)
        .await
        .context("listing unfinished prompts")?;
    let session_ids: Vec<Uuid> = rows.iter().map(|p| p.session_id).collect();
    let owners: Vec<Owner> = sessions::Entity::find()
        .select_only()
        .column(sessions::Column::Id)
        .column(sessions::Column::UserId)
        .column(sessions::Column::ToolId)
        .column_as(Expr::col((users::Entity, users::Column::Name)), "user_name")
        .column_as(Expr::col((tools::Entity, tools::Column::Name)), "tool_name")
        .join(JoinType::LeftJoin, sessions::Relation::User.def())
        .join(JoinType::LeftJoin, sessions::Relation::Tool.def())
        .filter(sessions::Column::Id.is_in(session_ids))
        .into_tuple()
        .all(db)
        .await
        .context("naming the prompts' users and tools")?;
    Ok(rows
        .into_iter()
        .map(|p| {
            let owner = owners.iter().find(|o| o.0 == p.session_id);
            StuckPrompt {
                id: p.id,
                session_id: p.session_id,
                user_id: owner.map(|o| o.1),
                user_name: owner.and_then(|o| o.3.clone()),
                tool_id: owner.map(|o| o.2),
                tool_name: owner.and_then(|o| o.4.clone()),
                state: p.state,
                created_at: p.created_at,
            }
        })
        .collect())
}

/// The unfinished prompts: how many are in each unfinished state, and when the oldest
/// was created. One query over the partial index of unfinished prompts, cheap enough
/// for every scrape of `/metrics`.
pub async fn unfinished<C: ConnectionTrait>(
    db: &C,
) -> Result<(Vec<(PromptState, i64)>, Option<DateTimeUtc>)> {
    let rows: Vec<(PromptState, i64, Option<DateTimeUtc>)> = prompts::Entity::find()
        .select_only()
        .column(prompts::Column::State)
        .column_as(
            Expr::from(Func::count(Expr::col(prompts::Column::Id))),
            "count",
        )
        .column_as(
            Expr::from(Func::min(Expr::col(prompts::Column::CreatedAt))),
            "oldest",
        )
        .filter(prompts::Column::State.is_in(UNFINISHED))
        .group_by(prompts::Column::State)
        .into_tuple()
        .all(db)
        .await
        .context("counting unfinished prompts")?;
    let oldest = rows.iter().filter_map(|(_, _, at)| *at).min();
    Ok((rows.into_iter().map(|(s, n, _)| (s, n)).collect(), oldest))
}
