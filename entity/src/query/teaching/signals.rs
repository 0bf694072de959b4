//! What modules found in a class's sessions: their extractions ([`extractions_of`]:
//! detected personal data, safety flags, the struggle or misconception signals a
//! webhook module emits, …) and their blocks ([`blocks_of`]), newest first, each with
//! the session and message it is about, so a teacher can open the conversation there.
//!
//! A block shows the module, the hook (the student's message or the answer), the
//! category and the module's reason as recorded with the blocked message — never the
//! blocked text itself: that is `message_audit.original_content`, admin-only. The
//! reason is only recorded for a blocked message (an answer's block keeps none).

use parley_protocol::{error::Result, hooks::Hook};
use sea_orm::{
    ConnectionTrait, FromQueryResult,
    prelude::{DateTimeUtc, Json},
    sea_query::{Expr, ExprTrait, Func, JoinType, Order, Query, SelectStatement},
};
use uuid::Uuid;

use super::{Scope, in_class, join_assignment_and_student};
use crate::{
    assignments,
    enums::ModuleOutcome,
    error::Context,
    extractions, message_audit, module_events, prompts,
    query::page::{Page, PageRequest},
    sessions, users,
};

/// The scope's window on the record's time, then one page after the cursor, newest
/// (highest id: ids are time-ordered UUIDs) first, one row over the page.
fn newest_first<T, C>(
    query: &mut SelectStatement,
    created_at: (T, C),
    id: (T, C),
    scope: &Scope,
    page: &PageRequest<Uuid>,
) where
    T: sea_orm::sea_query::IntoIden + Copy,
    C: sea_orm::sea_query::IntoIden + Copy,
{
    if let Some(from) = scope.window.from {
        query.and_where(Expr::col(created_at).gte(from));
    }
    if let Some(to) = scope.window.to {
        query.and_where(Expr::col(created_at).lt(to));
    }
    if let Some(after) = page.after {
        query.and_where(Expr::col(id).lt(after));
    }
    query.order_by(id, Order::Desc).limit(page.limit + 1);
}

/// The names every signal carries: whose session, on which assignment.
fn with_names(query: &mut SelectStatement) {
    query
        .column((sessions::Entity, sessions::Column::UserId))
        .column((sessions::Entity, sessions::Column::AssignmentId))
        .expr_as(
            Expr::col((users::Entity, users::Column::Name)),
            "student_name",
        )
        .expr_as(
            Expr::col((assignments::Entity, assignments::Column::Title)),
            "assignment_title",
        )
        .expr_as(
            Expr::col((sessions::Entity, sessions::Column::Title)),
            "session_title",
        );
    join_assignment_and_student(query);
}

/// Which extractions a list shows.
#[derive(Debug, Clone, Default)]
pub struct ExtractionFilter {
    /// Assignment, student, and the window on when they were recorded.
    pub scope: Scope,
    pub module: Option<String>,
    /// The extraction's `type` (`pii_detected`, `struggle_detected`, …).
    pub kind: Option<String>,
}

/// An extraction of a class's session, with where it was found.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct ClassExtraction {
    pub id: Uuid,
    pub session_id: Uuid,
    pub message_id: Option<Uuid>,
    pub module: String,
    pub r#type: String,
    pub data: Json,
    pub created_at: DateTimeUtc,
    pub user_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub session_title: Option<String>,
}

/// A page of the extractions of the class's sessions matching `filter`, newest first.
pub async fn extractions_of<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    filter: &ExtractionFilter,
    page: PageRequest<Uuid>,
) -> Result<Page<ClassExtraction, Uuid>> {
    use extractions::Column as X;
    let x = extractions::Entity;
    let mut query = Query::select()
        .columns([
            (x, X::Id),
            (x, X::SessionId),
            (x, X::MessageId),
            (x, X::Module),
            (x, X::Type),
            (x, X::Data),
            (x, X::CreatedAt),
        ])
        .from(x)
        .join(
            JoinType::InnerJoin,
            sessions::Entity,
            Expr::col((sessions::Entity, sessions::Column::Id)).equals((x, X::SessionId)),
        )
        .to_owned();
    with_names(&mut query);
    in_class(&mut query, class_id, &filter.scope);
    if let Some(module) = &filter.module {
        query.and_where(Expr::col((x, X::Module)).eq(module.as_str()));
    }
    if let Some(kind) = &filter.kind {
        query.and_where(Expr::col((x, X::Type)).eq(kind.as_str()));
    }
    newest_first(
        &mut query,
        (x, X::CreatedAt),
        (x, X::Id),
        &filter.scope,
        &page,
    );
    let backend = db.get_database_backend();
    let rows = ClassExtraction::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing a class's extractions")?;
    Ok(Page::from_overfetch(rows, page.limit, |r| r.id))
}

/// Which blocks a list shows.
#[derive(Debug, Clone, Default)]
pub struct BlockFilter {
    /// Assignment, student, and the window on when they happened.
    pub scope: Scope,
    pub module: Option<String>,
    /// The block's category (`self_harm`, `pii`, …).
    pub category: Option<String>,
}

/// A module's block in a class's session, with where it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassBlock {
    pub id: Uuid,
    pub session_id: Uuid,
    /// The message blocked (`[blocked]` as stored) or the answer that replaced a
    /// blocked answer.
    pub message_id: Option<Uuid>,
    pub module: String,
    /// `chat:before_ai` (the student's message) or `chat:after_ai` (the answer).
    pub hook: String,
    pub category: Option<String>,
    /// The module's reason, recorded with a blocked message.
    pub reason: Option<String>,
    pub created_at: DateTimeUtc,
    pub user_id: Uuid,
    pub student_name: String,
    pub assignment_id: Uuid,
    pub assignment_title: String,
    pub session_title: Option<String>,
}

#[derive(Debug, FromQueryResult)]
struct BlockRow {
    id: Uuid,
    session_id: Uuid,
    user_message_id: Option<Uuid>,
    assistant_message_id: Option<Uuid>,
    module: String,
    hook: String,
    category: Option<String>,
    reason: Option<String>,
    created_at: DateTimeUtc,
    user_id: Uuid,
    student_name: String,
    assignment_id: Uuid,
    assignment_title: String,
    session_title: Option<String>,
}

/// The reason the blocking module gave, as recorded with the blocked user message:
/// `MIN(redaction_reason)` of its audit rows by that module (one row in practice).
fn reason_of_block() -> Expr {
    let a = message_audit::Entity;
    let query = Query::select()
        .expr(Func::min(Expr::col((
            a,
            message_audit::Column::RedactionReason,
        ))))
        .from(a)
        .and_where(
            Expr::col((a, message_audit::Column::MessageId))
                .equals((prompts::Entity, prompts::Column::UserMessageId)),
        )
        .and_where(
            Expr::col((a, message_audit::Column::RedactionModule))
                .equals((module_events::Entity, module_events::Column::Module)),
        )
        .to_owned();
    Expr::SubQuery(None, Box::new(query.into()))
}

/// A page of the blocks in the class's sessions matching `filter`, newest first.
pub async fn blocks_of<C: ConnectionTrait>(
    db: &C,
    class_id: Uuid,
    filter: &BlockFilter,
    page: PageRequest<Uuid>,
) -> Result<Page<ClassBlock, Uuid>> {
    use module_events::Column as M;
    let m = module_events::Entity;
    let mut query = Query::select()
        .columns([
            (m, M::Id),
            (m, M::Module),
            (m, M::Hook),
            (m, M::Category),
            (m, M::CreatedAt),
        ])
        .columns([
            (prompts::Entity, prompts::Column::SessionId),
            (prompts::Entity, prompts::Column::UserMessageId),
            (prompts::Entity, prompts::Column::AssistantMessageId),
        ])
        .expr_as(reason_of_block(), "reason")
        .from(m)
        .join(
            JoinType::InnerJoin,
            prompts::Entity,
            Expr::col((prompts::Entity, prompts::Column::Id)).equals((m, M::PromptId)),
        )
        .join(
            JoinType::InnerJoin,
            sessions::Entity,
            Expr::col((sessions::Entity, sessions::Column::Id))
                .equals((prompts::Entity, prompts::Column::SessionId)),
        )
        .and_where(Expr::col((m, M::Outcome)).eq(ModuleOutcome::Block))
        .to_owned();
    with_names(&mut query);
    in_class(&mut query, class_id, &filter.scope);
    if let Some(module) = &filter.module {
        query.and_where(Expr::col((m, M::Module)).eq(module.as_str()));
    }
    if let Some(category) = &filter.category {
        query.and_where(Expr::col((m, M::Category)).eq(category.as_str()));
    }
    newest_first(
        &mut query,
        (m, M::CreatedAt),
        (m, M::Id),
        &filter.scope,
        &page,
    );
    let backend = db.get_database_backend();
    let rows = BlockRow::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing a class's blocks")?;
    let rows = rows.into_iter().map(ClassBlock::from).collect();
    Ok(Page::from_overfetch(rows, page.limit, |r: &ClassBlock| {
        r.id
    }))
}

impl From<BlockRow> for ClassBlock {
    fn from(r: BlockRow) -> Self {
        let on_answer = r.hook == Hook::AfterAi.as_str();
        Self {
            id: r.id,
            session_id: r.session_id,
            message_id: if on_answer {
                r.assistant_message_id
            } else {
                r.user_message_id
            },
            module: r.module,
            hook: r.hook,
            category: r.category,
            reason: if on_answer { None } else { r.reason },
            created_at: r.created_at,
            user_id: r.user_id,
            student_name: r.student_name,
            assignment_id: r.assignment_id,
            assignment_title: r.assignment_title,
            session_title: r.session_title,
        }
    }
}
