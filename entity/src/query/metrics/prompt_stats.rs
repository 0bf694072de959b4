//! The prompts' state distribution and the prompts that look stuck: not finished long
//! after they were created (a dead worker the reaper has not caught up with, a queue
//! that lost a job).

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect,
    prelude::DateTimeUtc,
    sea_query::{Expr, Func},
};
use uuid::Uuid;

use crate::{enums::PromptState, error::Context, prompts};

/// The states a prompt is not finished in.
pub const UNFINISHED: [PromptState; 3] = [
    PromptState::Created,
    PromptState::InProgress,
    PromptState::WaitingForTools,
];

/// A prompt that is not finished although it is older than the threshold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StuckPrompt {
    pub id: Uuid,
    pub session_id: Uuid,
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
}

/// Counts prompts by state; prompts unfinished and created before `stuck_before` are
/// stuck, and the `max_listed` oldest of them are listed.
pub async fn prompt_stats<C: ConnectionTrait>(
    db: &C,
    stuck_before: DateTimeUtc,
    max_listed: u64,
) -> Result<PromptStats> {
    let counts: Vec<(PromptState, i64)> = prompts::Entity::find()
        .select_only()
        .column(prompts::Column::State)
        .column_as(
            Expr::from(Func::count(Expr::col(prompts::Column::Id))),
            "count",
        )
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
    let stuck = stuck_query
        .order_by_asc(prompts::Column::CreatedAt)
        .order_by_asc(prompts::Column::Id)
        .limit(max_listed)
        .all(db)
        .await
        .context("listing stuck prompts")?
        .into_iter()
        .map(|p| StuckPrompt {
            id: p.id,
            session_id: p.session_id,
            state: p.state,
            created_at: p.created_at,
        })
        .collect();
    Ok(PromptStats {
        by_state,
        stuck_count,
        stuck,
    })
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
