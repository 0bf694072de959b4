//! The sessions of a class ([`sessions_of`]): opened on its assignments, the most
//! recently active first, each with its student's and assignment's names and what the
//! modules found in it counted.
//!
//! The window is on activity: a session is in it when it was active during it (last
//! active at or after `from`, started before `to`).

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, FromQueryResult,
    prelude::DateTimeUtc,
    sea_query::{Asterisk, Condition, Expr, ExprTrait, JoinType, Order, Query},
};
use uuid::Uuid;

use super::{Scope, count, in_class, join_assignment_and_student};
use crate::{
    assignments,
    enums::{ModuleOutcome, SessionState},
    error::Context,
    extractions, module_events, prompts,
    query::page::{Page, PageRequest},
    sessions, users,
};

/// A session as its teacher sees it in the class's list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassSession {
    pub id: Uuid,
    pub title: Option<String>,
    pub state: SessionState,
    pub student_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub message_count: i32,
    pub started_at: DateTimeUtc,
    pub last_activity_at: DateTimeUtc,
    /// Extractions recorded in the session.
    pub extractions: u64,
    /// Module runs that blocked a message or an answer of the session.
    pub blocks: u64,
}

/// The position of a session in the list (most recently active first, then by id).
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub struct ClassSessionKey {
    pub last_activity_at: DateTimeUtc,
    pub id: Uuid,
}

#[derive(Debug, FromQueryResult)]
struct Row {
    id: Uuid,
    title: Option<String>,
    state: SessionState,
    user_id: Uuid,
    student_name: String,
    assignment_id: Uuid,
    assignment_title: String,
    message_count: i32,
    started_at: DateTimeUtc,
    last_activity_at: DateTimeUtc,
    extractions: i64,
    blocks: i64,
}

/// `COUNT(*)` of the session's extractions.
fn extractions_of_session() -> Expr {
    let query = Query::select()
        .expr(Expr::col(Asterisk).count())
        .from(extractions::Entity)
        .and_where(
            Expr::col((extractions::Entity, extractions::Column::SessionId))
                .equals((sessions::Entity, sessions::Column::Id)),
        )
        .to_owned();
    Expr::SubQuery(None, Box::new(query.into()))
}

/// `COUNT(*)` of the blocks of the session's prompts.
fn blocks_of_session() -> Expr {
    let query = Query::select()
        .expr(Expr::col(Asterisk).count())
        .from(module_events::Entity)
        .join(
            JoinType::InnerJoin,
            prompts::Entity,
            Expr::col((prompts::Entity, prompts::Column::Id))
                .equals((module_events::Entity, module_events::Column::PromptId)),
        )
        .and_where(
            Expr::col((prompts::Entity, prompts::Column::SessionId))
                .equals((sessions::Entity, sessions::Column::Id)),
        )
        .and_where(
            Expr::col((module_events::Entity, module_events::Column::Outcome))
                .eq(ModuleOutcome::Block),
        )
        .to_owned();
    Expr::SubQuery(None, Box::new(query.into()))
}

/// A page of the class's sessions within `scope` (the caller checked the class and the
/// scope), most recently active first.
pub async fn sessions_of<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    scope: &Scope,
    page: PageRequest<ClassSessionKey>,
) -> Result<Page<ClassSession, ClassSessionKey>> {
    use sessions::Column as S;
    let mut query = Query::select()
        .columns([
            (sessions::Entity, S::Id),
            (sessions::Entity, S::Title),
            (sessions::Entity, S::State),
            (sessions::Entity, S::UserId),
            (sessions::Entity, S::AssignmentId),
            (sessions::Entity, S::MessageCount),
            (sessions::Entity, S::StartedAt),
            (sessions::Entity, S::LastActivityAt),
        ])
        .expr_as(
            Expr::col((users::Entity, users::Column::Name)),
            "student_name",
        )
        .expr_as(
            Expr::col((assignments::Entity, assignments::Column::Title)),
            "assignment_title",
        )
        .expr_as(extractions_of_session(), "extractions")
        .expr_as(blocks_of_session(), "blocks")
        .from(sessions::Entity)
        .to_owned();
    join_assignment_and_student(&mut query);
    in_class(&mut query, class_id, scope);
    if let Some(from) = scope.window.from {
        query.and_where(Expr::col((sessions::Entity, S::LastActivityAt)).gte(from));
    }
    if let Some(to) = scope.window.to {
        query.and_where(Expr::col((sessions::Entity, S::StartedAt)).lt(to));
    }
    if let Some(key) = page.after {
        let at = Expr::col((sessions::Entity, S::LastActivityAt));
        query.cond_where(
            Condition::any()
                .add(at.clone().lt(key.last_activity_at))
                .add(
                    Condition::all()
                        .add(at.eq(key.last_activity_at))
                        .add(Expr::col((sessions::Entity, S::Id)).lt(key.id)),
                ),
        );
    }
    query
        .order_by((sessions::Entity, S::LastActivityAt), Order::Desc)
        .order_by((sessions::Entity, S::Id), Order::Desc)
        .limit(page.limit + 1);
    let backend = db.get_database_backend();
    let rows = Row::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing a class's sessions")?;
    let rows = rows
        .into_iter()
        .map(|r| ClassSession {
            id: r.id,
            title: r.title,
            state: r.state,
            student_id: r.user_id,
            student_name: r.student_name,
            assignment_id: r.assignment_id,
            assignment_title: r.assignment_title,
            message_count: r.message_count,
            started_at: r.started_at,
            last_activity_at: r.last_activity_at,
            extractions: count(r.extractions),
            blocks: count(r.blocks),
        })
        .collect();
    Ok(Page::from_overfetch(
        rows,
        page.limit,
        |s: &ClassSession| ClassSessionKey {
            last_activity_at: s.last_activity_at,
            id: s.id,
        },
    ))
}
