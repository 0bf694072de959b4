//! The slots of scheduled background tasks (`scheduled_tasks`): any number of workers
//! try a task every period, and the one whose guarded `UPDATE` takes the slot runs it.

use std::time::Duration;

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Set,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, OnConflict},
};

use crate::{error::Context, scheduled_tasks};

/// Makes sure each task has its row (a deployment's first start).
pub async fn ensure<C: ConnectionTrait>(db: &C, names: &[&str]) -> Result<()> {
    let rows = names.iter().map(|name| scheduled_tasks::ActiveModel {
        name: Set((*name).to_owned()),
        runner: Set(None),
        last_started_at: Set(None),
        last_finished_at: Set(None),
        last_outcome: Set(None),
        runs: Set(0),
    });
    scheduled_tasks::Entity::insert_many(rows)
        .on_conflict(
            OnConflict::column(scheduled_tasks::Column::Name)
                .do_nothing()
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("creating the scheduled tasks' rows")?;
    Ok(())
}

/// Takes `name`'s slot for `runner` when its last start is at least `every` before
/// `now` (or it never started): true when `runner` runs the task now, and no other
/// runner does until `every` has passed.
pub async fn take_slot<C: ConnectionTrait>(
    db: &C,
    name: &str,
    runner: &str,
    every: Duration,
    now: DateTimeUtc,
) -> Result<bool> {
    use scheduled_tasks::Column as T;
    let every = chrono::Duration::from_std(every).unwrap_or(chrono::Duration::days(1));
    let taken = scheduled_tasks::Entity::update_many()
        .col_expr(T::Runner, Expr::value(runner))
        .col_expr(T::LastStartedAt, Expr::value(now))
        .filter(T::Name.eq(name))
        .filter(
            sea_orm::Condition::any()
                .add(T::LastStartedAt.is_null())
                .add(T::LastStartedAt.lte(now - every)),
        )
        .exec(db)
        .await
        .context("taking a scheduled task's slot")?;
    Ok(taken.rows_affected == 1)
}

/// Records how `runner`'s run of `name` ended.
pub async fn finished<C: ConnectionTrait>(
    db: &C,
    name: &str,
    runner: &str,
    outcome: &str,
    now: DateTimeUtc,
) -> Result<()> {
    use scheduled_tasks::Column as T;
    scheduled_tasks::Entity::update_many()
        .col_expr(T::LastFinishedAt, Expr::value(now))
        .col_expr(T::LastOutcome, Expr::value(outcome))
        .col_expr(T::Runs, Expr::col(T::Runs).add(1))
        .filter(T::Name.eq(name))
        .filter(T::Runner.eq(runner))
        .exec(db)
        .await
        .context("recording a scheduled task's run")?;
    Ok(())
}

/// Every task's row, by name.
pub async fn all<C: ConnectionTrait>(db: &C) -> Result<Vec<scheduled_tasks::Model>> {
    use sea_orm::QueryOrder;
    scheduled_tasks::Entity::find()
        .order_by_asc(scheduled_tasks::Column::Name)
        .all(db)
        .await
        .context("reading the scheduled tasks")
}

#[cfg(test)]
mod tests;
