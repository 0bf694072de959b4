//! Timers: the data behind the timer skill, one user's, by name (`label`). A user has at
//! most one *live* timer of a name — running (not cancelled, not run out) or paused —
//! and every change is a guarded update on that row, so two turns racing on one timer
//! cannot both pause it or both resume it.

use parley_protocol::error::Result;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, EntityTrait,
    QueryFilter, QueryOrder, Set, prelude::DateTimeUtc, sea_query::Expr,
};
use uuid::Uuid;

use crate::{error::Context, timers};

/// A timer to start for a user.
#[derive(Debug, Clone)]
pub struct NewTimer {
    pub user_id: Uuid,
    /// The session whose turn started it.
    pub session_id: Option<Uuid>,
    /// Its name, unique among the user's live timers.
    pub label: String,
    pub duration_s: i64,
}

/// The user's live timer called `label`, if any: not cancelled, and paused or still
/// running at `now`.
pub async fn live<C: ConnectionTrait>(
    db: &C,
    user_id: Uuid,
    label: &str,
    now: DateTimeUtc,
) -> Result<Option<timers::Model>> {
    timers::Entity::find()
        .filter(timers::Column::UserId.eq(user_id))
        .filter(timers::Column::Label.eq(label))
        .filter(timers::Column::CanceledAt.is_null())
        .filter(timers::Column::FiredAt.is_null())
        .filter(
            Condition::any()
                .add(timers::Column::PausedAt.is_not_null())
                .add(timers::Column::FiresAt.gt(now)),
        )
        .order_by_desc(timers::Column::Id)
        .one(db)
        .await
        .context("reading a timer")
}

/// Starts a timer; a live timer of the same user and name is cancelled first (setting a
/// timer again restarts it).
pub async fn start(
    db: &DatabaseConnection,
    new: NewTimer,
    now: DateTimeUtc,
) -> Result<timers::Model> {
    let txn = super::begin_write(db, "starting to set a timer").await?;
    timers::Entity::update_many()
        .col_expr(timers::Column::CanceledAt, Expr::value(now))
        .filter(timers::Column::UserId.eq(new.user_id))
        .filter(timers::Column::Label.eq(new.label.as_str()))
        .filter(timers::Column::CanceledAt.is_null())
        .filter(timers::Column::FiredAt.is_null())
        .exec(&txn)
        .await
        .context("replacing a timer")?;
    let row = timers::ActiveModel {
        id: Set(Uuid::now_v7()),
        user_id: Set(new.user_id),
        session_id: Set(new.session_id),
        label: Set(new.label),
        duration_s: Set(new.duration_s),
        fires_at: Set(now + chrono::Duration::seconds(new.duration_s)),
        canceled_at: Set(None),
        fired_at: Set(None),
        created_at: Set(now),
        paused_at: Set(None),
    }
    .insert(&txn)
    .await
    .context("setting a timer")?;
    txn.commit().await.context("committing a timer")?;
    Ok(row)
}

/// Pauses a running timer; `false` when it is not running (paused, cancelled or run
/// out meanwhile).
pub async fn pause<C: ConnectionTrait>(db: &C, id: Uuid, now: DateTimeUtc) -> Result<bool> {
    let done = timers::Entity::update_many()
        .col_expr(timers::Column::PausedAt, Expr::value(now))
        .filter(timers::Column::Id.eq(id))
        .filter(timers::Column::PausedAt.is_null())
        .filter(timers::Column::CanceledAt.is_null())
        .filter(timers::Column::FiresAt.gt(now))
        .exec(db)
        .await
        .context("pausing a timer")?;
    Ok(done.rows_affected == 1)
}

/// Resumes a paused timer: it fires after the time it had left at the pause. Returns
/// the running timer, or `None` when it was not paused (any more).
pub async fn resume<C: ConnectionTrait>(
    db: &C,
    timer: &timers::Model,
    now: DateTimeUtc,
) -> Result<Option<timers::Model>> {
    let Some(paused_at) = timer.paused_at else {
        return Ok(None);
    };
    let fires_at = now + (timer.fires_at - paused_at);
    let done = timers::Entity::update_many()
        .col_expr(timers::Column::FiresAt, Expr::value(fires_at))
        .col_expr(
            timers::Column::PausedAt,
            Expr::value(Option::<DateTimeUtc>::None),
        )
        .filter(timers::Column::Id.eq(timer.id))
        .filter(timers::Column::PausedAt.eq(paused_at))
        .filter(timers::Column::CanceledAt.is_null())
        .exec(db)
        .await
        .context("resuming a timer")?;
    Ok((done.rows_affected == 1).then(|| timers::Model {
        fires_at,
        paused_at: None,
        ..timer.clone()
    }))
}

/// Cancels a live timer; `false` when it was cancelled already.
pub async fn cancel<C: ConnectionTrait>(db: &C, id: Uuid, now: DateTimeUtc) -> Result<bool> {
    let done = timers::Entity::update_many()
        .col_expr(timers::Column::CanceledAt, Expr::value(now))
        .filter(timers::Column::Id.eq(id))
        .filter(timers::Column::CanceledAt.is_null())
        .exec(db)
        .await
        .context("cancelling a timer")?;
    Ok(done.rows_affected == 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        enums::UserRole,
        query::testing::{self, on_both_backends},
    };

    fn tea(user_id: Uuid, duration_s: i64) -> NewTimer {
        NewTimer {
            user_id,
            session_id: None,
            label: "tea".into(),
            duration_s,
        }
    }

    on_both_backends!(a_timer_pauses_resumes_and_cancels_per_user, |db| {
        let alice = testing::user(&db, UserRole::Student).await;
        let bob = testing::user(&db, UserRole::Student).await;
        let t0 = crate::query::now();
        let first = start(&db, tea(alice, 300), t0).await.unwrap();
        start(&db, tea(bob, 60), t0).await.unwrap();
        // Setting it again restarts it: one live timer per user and name.
        let timer = start(&db, tea(alice, 600), t0).await.unwrap();
        assert_ne!(timer.id, first.id);
        let found = live(&db, alice, "tea", t0).await.unwrap().unwrap();
        assert_eq!(found.id, timer.id);

        let paused_at = t0 + chrono::Duration::seconds(100);
        assert!(pause(&db, timer.id, paused_at).await.unwrap());
        assert!(
            !pause(&db, timer.id, paused_at).await.unwrap(),
            "paused twice"
        );
        // Paused, it stays live past its old end.
        let late = t0 + chrono::Duration::seconds(5000);
        let paused = live(&db, alice, "tea", late).await.unwrap().unwrap();
        let resumed = resume(&db, &paused, late).await.unwrap().unwrap();
        assert_eq!(resumed.fires_at, late + chrono::Duration::seconds(500));
        assert!(resume(&db, &paused, late).await.unwrap().is_none());

        // Bob's timer of the same name is his own.
        let bobs = live(&db, bob, "tea", t0).await.unwrap().unwrap();
        assert_eq!(bobs.duration_s, 60);
        assert!(
            live(&db, bob, "tea", late).await.unwrap().is_none(),
            "ran out"
        );

        assert!(cancel(&db, timer.id, late).await.unwrap());
        assert!(live(&db, alice, "tea", late).await.unwrap().is_none());
        assert!(live(&db, bob, "tea", t0).await.unwrap().is_some());
    });
}
