//! The history window's start and summary of a session (`session_summaries`): read when
//! a turn's history does not fit its model's window, written when the window steps.

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, EntityTrait, Set,
    prelude::DateTimeUtc,
    sea_query::{ExprTrait, OnConflict},
};
use uuid::Uuid;

use crate::{error::Context, session_summaries};

/// The row of `session_id`, if its window ever stepped.
pub async fn get<C: ConnectionTrait>(
    db: &C,
    session_id: Uuid,
) -> Result<Option<session_summaries::Model>> {
    session_summaries::Entity::find_by_id(session_id)
        .one(db)
        .await
        .context("reading a session's summary")
}

/// A step of the window: it now leaves out `through_message_id` and what came before,
/// summarized as `summary` (none: not summarized).
#[derive(Debug, Clone)]
pub struct Step {
    pub session_id: Uuid,
    pub through_message_id: Uuid,
    pub summary: Option<String>,
    pub model: Option<String>,
}

/// Records a step (one statement: inserted, or the row replaced and its count raised).
pub async fn record_step<C: ConnectionTrait>(db: &C, step: Step, now: DateTimeUtc) -> Result<()> {
    use session_summaries::Column as S;
    let row = session_summaries::ActiveModel {
        session_id: Set(step.session_id),
        through_message_id: Set(step.through_message_id),
        summary: Set(step.summary),
        model: Set(step.model),
        steps: Set(1),
        created_at: Set(now),
        updated_at: Set(now),
    };
    session_summaries::Entity::insert(row)
        .on_conflict(
            OnConflict::column(S::SessionId)
                .update_columns([S::ThroughMessageId, S::Summary, S::Model, S::UpdatedAt])
                .value(
                    S::Steps,
                    sea_orm::sea_query::Expr::col((session_summaries::Entity, S::Steps)).add(1),
                )
                .to_owned(),
        )
        .exec_without_returning(db)
        .await
        .context("recording a step of a session's history window")?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{
        enums::UserRole,
        query::testing::{self, on_both_backends},
    };

    on_both_backends!(a_step_is_recorded_and_the_next_replaces_it, |db| {
        let user = testing::user(&db, UserRole::Student).await;
        let session = testing::session(&db, user).await.id;
        assert_eq!(get(&db, session).await.unwrap(), None);
        let (a, b) = (Uuid::now_v7(), Uuid::now_v7());
        let step = |through, summary: &str| Step {
            session_id: session,
            through_message_id: through,
            summary: Some(summary.to_owned()),
            model: Some("m".into()),
        };
        record_step(&db, step(a, "first"), crate::query::now())
            .await
            .unwrap();
        record_step(&db, step(b, "second"), crate::query::now())
            .await
            .unwrap();
        let row = get(&db, session).await.unwrap().expect("a row");
        assert_eq!(
            (row.through_message_id, row.summary.as_deref(), row.steps),
            (b, Some("second"), 2)
        );
    });
}
