//! The hand-off of a session to its oldest waiting prompt when the prompt holding it
//! ends: counted with the finish's messages in one `UPDATE … RETURNING`, or on its own
//! after a cancel or an abandon.

use parley_protocol::error::{Error, Result};
use sea_orm::{
    ColumnTrait, ConnectionTrait, DatabaseConnection, EntityTrait, QueryFilter,
    prelude::DateTimeUtc,
    sea_query::{Expr, ExprTrait, Func, Order, Query, UpdateStatement},
};
use uuid::Uuid;

use crate::{
    enums::{PromptState, TitleSource},
    error::Context,
    prompts, sessions,
};

/// The oldest prompt of the session waiting for it, other than `prompt_id`.
fn next_waiting(session_id: Uuid, prompt_id: Uuid) -> sea_orm::sea_query::SelectStatement {
    Query::select()
        .column(prompts::Column::Id)
        .from(prompts::Entity)
        .and_where(prompts::Column::SessionId.eq(session_id))
        .and_where(prompts::Column::State.eq(PromptState::Created))
        .and_where(prompts::Column::Id.ne(prompt_id))
        .order_by(prompts::Column::Id, Order::Asc)
        .limit(1)
        .to_owned()
}

/// `title = COALESCE(title, $title)` and `title_source = COALESCE(title_source,
/// 'words')`: the first words of the first finished exchange title an untitled session,
/// in the update of the session the finish runs anyway (no statement of its own). The
/// two are null together, so the source is `words` exactly when this title took.
fn first_words_title(title: &str) -> [(sessions::Column, Expr); 2] {
    [
        (
            sessions::Column::Title,
            Func::coalesce([Expr::col(sessions::Column::Title), Expr::value(title)]).into(),
        ),
        (
            sessions::Column::TitleSource,
            Func::coalesce([
                Expr::col(sessions::Column::TitleSource),
                Expr::value(TitleSource::Words),
            ])
            .into(),
        ),
    ]
}

/// What the end of a turn also writes on its session, in the update that counts its
/// messages: the last message written becomes the active leaf (DESIGN §13), and an
/// untitled session takes the first words' title.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Marks<'a> {
    pub leaf: Option<Uuid>,
    pub title: Option<&'a str>,
}

impl Marks<'_> {
    fn columns(self) -> impl Iterator<Item = (sessions::Column, Expr)> {
        let leaf = self
            .leaf
            .map(|leaf| (sessions::Column::ActiveLeafId, Expr::value(leaf)));
        leaf.into_iter()
            .chain(self.title.into_iter().flat_map(first_words_title))
    }
}

/// The session's message counter and its hand-over to the next waiting prompt, only
/// while `prompt` holds it: an `UPDATE … RETURNING message_count, active_prompt_id`.
/// `marks` go with it: the new active leaf, the first words' title.
pub(super) fn counted_hand_over(
    prompt: &prompts::Model,
    added: usize,
    marks: Marks<'_>,
    now: DateTimeUtc,
) -> UpdateStatement {
    let mut update = Query::update();
    for (column, value) in marks.columns() {
        update.value(column, value);
    }
    update
        .table(sessions::Entity)
        .value(
            sessions::Column::MessageCount,
            Expr::col(sessions::Column::MessageCount).add(added as i32),
        )
        .value(sessions::Column::LastActivityAt, Expr::value(now))
        .value(
            sessions::Column::ActivePromptId,
            Expr::SubQuery(
                None,
                Box::new(next_waiting(prompt.session_id, prompt.id).into()),
            ),
        )
        .and_where(sessions::Column::Id.eq(prompt.session_id))
        .and_where(sessions::Column::ActivePromptId.eq(prompt.id))
        .returning(Query::returning().columns([
            sessions::Column::MessageCount,
            sessions::Column::ActivePromptId,
        ]))
        .to_owned()
}

/// Counts `added` messages on the session and, when `prompt_id` holds it, gives it to
/// its oldest waiting prompt — one `UPDATE … RETURNING` (the next prompt is a subquery).
/// `marks` go with it: the new active leaf, the first words' title. Returns the message
/// count after and the prompt handed to.
pub(super) async fn release_session<C: ConnectionTrait>(
    txn: &C,
    session_id: Uuid,
    prompt_id: Uuid,
    added: usize,
    marks: Marks<'_>,
    now: DateTimeUtc,
) -> Result<(i32, Option<Uuid>)> {
    let counted = || {
        let mut update = sessions::Entity::update_many();
        for (column, value) in marks.columns() {
            update = update.col_expr(column, value);
        }
        update
            .col_expr(
                sessions::Column::MessageCount,
                Expr::col(sessions::Column::MessageCount).add(added as i32),
            )
            .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
            .filter(sessions::Column::Id.eq(session_id))
    };
    let handed = counted()
        .col_expr(
            sessions::Column::ActivePromptId,
            Expr::SubQuery(None, Box::new(next_waiting(session_id, prompt_id).into())),
        )
        .filter(sessions::Column::ActivePromptId.eq(prompt_id))
        .exec_with_returning(txn)
        .await
        .context("handing the session to the next prompt")?;
    if let Some(session) = handed.first() {
        return Ok((session.message_count, session.active_prompt_id));
    }
    if added == 0 {
        return Ok((0, None));
    }
    // The prompt did not hold the session (it was resumed or handed over meanwhile):
    // only count its messages.
    let session = counted()
        .exec_with_returning(txn)
        .await
        .context("counting messages on their session")?;
    let count = session
        .first()
        .map(|s| s.message_count)
        .ok_or(Error::not_found("session"))?;
    Ok((count, None))
}

/// Ends a prompt that no worker owns (cancelled before it ran) and hands the session on.
pub async fn hand_over_after_cancel(
    db: &DatabaseConnection,
    prompt: &prompts::Model,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let txn = crate::query::begin_write(db, "starting a hand-over").await?;
    let next = hand_over(&txn, prompt, now).await?;
    txn.commit().await.context("committing a hand-over")?;
    Ok(next)
}

/// Gives the session to its oldest waiting prompt (or none) if `prompt` held it.
pub(super) async fn hand_over<C: ConnectionTrait>(
    db: &C,
    prompt: &prompts::Model,
    now: DateTimeUtc,
) -> Result<Option<Uuid>> {
    let next = next_waiting(prompt.session_id, prompt.id);
    let next_id = db
        .query_one_raw(db.get_database_backend().build(&next))
        .await
        .context("finding the next waiting prompt")?
        .map(|row| row.try_get::<Uuid>("", "id"))
        .transpose()
        .context("reading the next waiting prompt")?;
    let handed = sessions::Entity::update_many()
        .col_expr(sessions::Column::ActivePromptId, Expr::value(next_id))
        .col_expr(sessions::Column::LastActivityAt, Expr::value(now))
        .filter(sessions::Column::Id.eq(prompt.session_id))
        .filter(sessions::Column::ActivePromptId.eq(prompt.id))
        .exec(db)
        .await
        .context("handing the session to the next prompt")?;
    Ok(if handed.rows_affected == 1 {
        next_id
    } else {
        None
    })
}

#[cfg(test)]
mod tests {
    use sea_orm::{ConnectionTrait, DbBackend, Statement};

    use super::*;
    use crate::query::testing::{self, on_both_backends};

    /// The plan of the hand-over's subquery, as the backend explains it.
    async fn plan(db: &DatabaseConnection, session_id: Uuid, prompt_id: Uuid) -> String {
        let backend = db.get_database_backend();
        let query = backend.build(&next_waiting(session_id, prompt_id));
        let explain = match backend {
            DbBackend::Postgres => "EXPLAIN",
            _ => "EXPLAIN QUERY PLAN",
        };
        let statement = Statement {
            sql: format!("{explain} {}", query.sql),
            ..query
        };
        let rows = db.query_all_raw(statement).await.expect("explaining");
        rows.iter()
            .map(|row| match backend {
                DbBackend::Postgres => row.try_get::<String>("", "QUERY PLAN"),
                _ => row.try_get::<String>("", "detail"),
            })
            .collect::<std::result::Result<Vec<_>, _>>()
            .expect("reading the plan")
            .join("\n")
    }

    /// Sets the state of `prompt_id`.
    async fn set_state(db: &DatabaseConnection, prompt_id: Uuid, state: PromptState) {
        prompts::Entity::update_many()
            .col_expr(prompts::Column::State, Expr::value(state))
            .filter(prompts::Column::Id.eq(prompt_id))
            .exec(db)
            .await
            .expect("setting a prompt's state");
    }

    // The finish hands the session to its oldest waiting prompt through the partial
    // index of waiting prompts, on a young table and on an analysed one, whatever the
    // session's history or the other sessions' backlog: the statement every turn ends
    // with does not grow with either.
    on_both_backends!(
        the_hand_over_reads_only_the_sessions_waiting_prompts,
        |db| {
            let user = testing::user(&db, crate::enums::UserRole::Student).await;
            let session = testing::session(&db, user).await;
            let busy = testing::session(&db, user).await;
            let holder = testing::prompt(&db, session.id).await;
            for _ in 0..200 {
                let done = testing::prompt(&db, session.id).await;
                set_state(&db, done.id, PromptState::Completed).await;
            }
            // Another session's backlog.
            for _ in 0..50 {
                let queued = testing::prompt(&db, busy.id).await;
                set_state(&db, queued.id, PromptState::Created).await;
            }
            let mut waiting = Vec::new();
            for _ in 0..2 {
                let next = testing::prompt(&db, session.id).await;
                set_state(&db, next.id, PromptState::Created).await;
                waiting.push(next.id);
            }

            for analysed in [false, true] {
                if analysed {
                    db.execute_unprepared("ANALYZE").await.expect("analysing");
                }
                let plan = plan(&db, session.id, holder.id).await;
                assert!(
                    plan.contains("idx_prompts_session_waiting"),
                    "analysed: {analysed}\n{plan}"
                );
                let next = db
                    .query_one_raw(
                        db.get_database_backend()
                            .build(&next_waiting(session.id, holder.id)),
                    )
                    .await
                    .expect("finding the next waiting prompt")
                    .map(|row| row.try_get::<Uuid>("", "id").expect("reading its id"));
                assert_eq!(next, Some(waiting[0]));
                // The oldest waiting prompt looks past itself to the next one.
                let after = db
                    .query_one_raw(
                        db.get_database_backend()
                            .build(&next_waiting(session.id, waiting[0])),
                    )
                    .await
                    .expect("finding the next waiting prompt")
                    .map(|row| row.try_get::<Uuid>("", "id").expect("reading its id"));
                assert_eq!(after, Some(waiting[1]));
            }
        }
    );
}
