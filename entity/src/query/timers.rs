//! Timers: the data behind the timer skill, one user's, by name (`label`). A user has at
//! most one *live* timer of a name — running (not cancelled, not run out) or paused —
//! and every change is a guarded update on that row, so two turns racing on one timer
//! cannot both pause it or both resume it.
//!
//! A due timer *fires* once, whatever the number of workers looking for due timers: the
//! guarded `UPDATE` that sets its `fired_at` ([`fire`]) is the claim, in the same
//! transaction as its notice in its session, so a worker that dies in between leaves
//! the timer to fire again, and two workers never both post the notice.

use parley_protocol::error::Result;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, Condition, ConnectionTrait, DatabaseConnection, EntityTrait,
    QueryFilter, QueryOrder, QuerySelect, Set, prelude::DateTimeUtc, sea_query::Expr,
};
use uuid::Uuid;

use crate::{
    enums::MessageRole,
    error::Context,
    messages,
    query::conversation::{self, MessageRow},
    sessions, timers,
};

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

/// Whether a timer is pending: neither fired nor cancelled nor paused.
fn pending() -> Condition {
    Condition::all()
        .add(timers::Column::FiredAt.is_null())
        .add(timers::Column::CanceledAt.is_null())
        .add(timers::Column::PausedAt.is_null())
}

/// When the next pending timer is due (`None`: none is pending).
pub async fn next_due<C: ConnectionTrait>(db: &C) -> Result<Option<DateTimeUtc>> {
    let next = timers::Entity::find()
        .filter(pending())
        .order_by_asc(timers::Column::FiresAt)
        .one(db)
        .await
        .context("looking for the next due timer")?;
    Ok(next.map(|timer| timer.fires_at))
}

/// Up to `limit` pending timers due at `now`, the earliest first.
pub async fn due<C: ConnectionTrait>(
    db: &C,
    now: DateTimeUtc,
    limit: u64,
) -> Result<Vec<timers::Model>> {
    timers::Entity::find()
        .filter(pending())
        .filter(timers::Column::FiresAt.lte(now))
        .order_by_asc(timers::Column::FiresAt)
        .limit(limit)
        .all(db)
        .await
        .context("looking for due timers")
}

/// A timer that fired, and its notice in its session (`None`: it has no session, or
/// the session is gone).
#[derive(Debug, Clone, PartialEq)]
pub struct Fired {
    pub timer: timers::Model,
    pub notice: Option<messages::Model>,
}

/// What [`fire`] did with a due timer.
#[derive(Debug, Clone, PartialEq)]
pub enum Firing {
    /// It fired.
    Fired(Box<Fired>),
    /// A turn of its session is in flight: it fires once the turn has ended, so its
    /// notice never lands in the middle of a turn.
    Deferred,
    /// It is not due any more: another worker fired it, or it was paused or cancelled.
    Gone,
}

/// Fires a due timer, once: in one transaction, the session's row is locked (so no turn
/// starts in between; a session with a turn in flight defers the timer), the guarded
/// `UPDATE` claims the timer (`fired_at`, only if it is still pending and due), and
/// `notice` is appended to the session as an assistant message with no prompt.
pub async fn fire(
    db: &DatabaseConnection,
    timer: &timers::Model,
    notice: String,
    now: DateTimeUtc,
) -> Result<Firing> {
    let txn = super::begin_write(db, "starting to fire a timer").await?;
    let session = match timer.session_id {
        Some(session_id) => sessions::Entity::find_by_id(session_id)
            .lock_exclusive()
            .one(&txn)
            .await
            .context("reading a timer's session")?
            // A deleted session (a tombstone) takes no notice; the feed still hears it.
            .filter(|s| s.deleted_at.is_none()),
        None => None,
    };
    if session
        .as_ref()
        .is_some_and(|s| s.active_prompt_id.is_some())
    {
        return Ok(Firing::Deferred);
    }
    let claimed = timers::Entity::update_many()
        .col_expr(timers::Column::FiredAt, Expr::value(now))
        .filter(timers::Column::Id.eq(timer.id))
        .filter(pending())
        .filter(timers::Column::FiresAt.lte(now))
        .exec(&txn)
        .await
        .context("firing a timer")?;
    if claimed.rows_affected != 1 {
        return Ok(Firing::Gone);
    }
    let notice = match session {
        Some(session) => {
            let row = MessageRow {
                id: Uuid::now_v7(),
                role: MessageRole::Assistant,
                content: notice,
                prompt_id: None,
                is_complete: true,
                // After the end of the branch the session shows, which it becomes.
                parent_id: session.active_leaf_id,
            };
            let rows = std::slice::from_ref(&row);
            let seq = conversation::append_messages(&txn, session.id, rows, now).await?;
            Some(row.into_model(session.id, seq, now))
        }
        None => None,
    };
    txn.commit().await.context("committing a fired timer")?;
    Ok(Firing::Fired(Box::new(Fired {
        timer: timers::Model {
            fired_at: Some(now),
            ..timer.clone()
        },
        notice,
    })))
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

    on_both_backends!(
        a_due_timer_fires_once_after_any_turn_and_never_paused_or_cancelled,
        |db| {
            use sea_orm::{ActiveModelTrait, IntoActiveModel};
            let alice = testing::user(&db, UserRole::Student).await;
            let session = testing::session(&db, alice).await;
            let t0 = crate::query::now();
            let in_session = NewTimer {
                session_id: Some(session.id),
                ..tea(alice, 2)
            };
            let timer = start(&db, in_session, t0).await.unwrap();
            let paused = start(
                &db,
                NewTimer {
                    label: "eggs".into(),
                    ..tea(alice, 1)
                },
                t0,
            )
            .await
            .unwrap();
            assert!(pause(&db, paused.id, t0).await.unwrap());
            let canceled = start(
                &db,
                NewTimer {
                    label: "rice".into(),
                    ..tea(alice, 1)
                },
                t0,
            )
            .await
            .unwrap();
            assert!(cancel(&db, canceled.id, t0).await.unwrap());
            let loose = start(
                &db,
                NewTimer {
                    label: "nap".into(),
                    ..tea(alice, 1)
                },
                t0,
            )
            .await
            .unwrap();

            assert_eq!(next_due(&db).await.unwrap(), Some(loose.fires_at));
            assert!(
                due(&db, t0, 10).await.unwrap().is_empty(),
                "nothing due yet"
            );
            let later = t0 + chrono::Duration::seconds(3);
            let found: Vec<Uuid> = due(&db, later, 10)
                .await
                .unwrap()
                .iter()
                .map(|t| t.id)
                .collect();
            assert_eq!(
                found,
                [loose.id, timer.id],
                "paused and cancelled timers are not due"
            );

            // A turn in flight defers the notice.
            let prompt = testing::prompt(&db, session.id).await;
            let mut busy = session.clone().into_active_model();
            busy.active_prompt_id = Set(Some(prompt.id));
            let busy = busy.update(&db).await.unwrap();
            let notice = || "⏰ The tea timer is done".to_owned();
            assert_eq!(
                fire(&db, &timer, notice(), later).await.unwrap(),
                Firing::Deferred
            );
            let mut idle = busy.into_active_model();
            idle.active_prompt_id = Set(None);
            idle.update(&db).await.unwrap();

            let Firing::Fired(fired) = fire(&db, &timer, notice(), later).await.unwrap() else {
                panic!("the timer fires");
            };
            let message = fired.notice.expect("a notice in its session");
            assert_eq!(message.content, notice());
            assert_eq!(message.role, MessageRole::Assistant);
            assert_eq!(message.prompt_id, None);
            assert_eq!(
                fire(&db, &timer, notice(), later).await.unwrap(),
                Firing::Gone,
                "once"
            );
            assert!(matches!(
                fire(&db, &loose, notice(), later).await.unwrap(),
                Firing::Fired(fired) if fired.notice.is_none()
            ));
            assert_eq!(
                fire(&db, &paused, notice(), later).await.unwrap(),
                Firing::Gone
            );
            assert_eq!(
                fire(&db, &canceled, notice(), later).await.unwrap(),
                Firing::Gone
            );
            assert_eq!(next_due(&db).await.unwrap(), None);
        }
    );
}
