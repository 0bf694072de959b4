//! What administrators read of the feedback: the list, newest first, with the answer's
//! text (as stored: redacted where a module redacted it), the session's tool and user
//! by name, and the model that answered ([`list`]); and the counts of ups and downs by
//! tool, by model and overall ([`figures`]), summed by the database (`GROUP BY`), not
//! here.
//!
//! The window is on `created_at`: when the feedback was first given (a changed rating
//! keeps its row and its date).

use parley_protocol::error::Result;
use sea_orm::{
    ConnectionTrait, FromQueryResult, JoinType,
    prelude::DateTimeUtc,
    sea_query::{Alias, Expr, ExprTrait, Order, Query, SelectStatement},
};
use uuid::Uuid;

use crate::{
    enums::FeedbackRating,
    error::Context,
    message_feedback::{self, FeedbackTags},
    messages, prompts,
    query::{
        metrics::Window,
        page::{Page, PageRequest},
    },
    sessions, tools, users,
};

/// Which feedback an administrator looks at: given in the window and matching every
/// filter given.
#[derive(Debug, Clone, Default)]
pub struct FeedbackFilter {
    pub window: Window,
    pub rating: Option<FeedbackRating>,
    /// The session's chat tool.
    pub tool_id: Option<Uuid>,
    /// The model that wrote the answer.
    pub model: Option<String>,
    /// Who gave it.
    pub user_id: Option<Uuid>,
}

/// One feedback with what it is about.
#[derive(Debug, Clone, PartialEq, Eq, FromQueryResult)]
pub struct FeedbackEntry {
    pub id: Uuid,
    pub message_id: Uuid,
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub user_name: String,
    pub user_email: String,
    pub tool_id: Uuid,
    pub tool_name: String,
    /// The model that wrote the answer (none for an answer no model wrote: a skill's,
    /// a module's direct response, as recorded).
    pub model: Option<String>,
    pub rating: FeedbackRating,
    pub comment: Option<String>,
    pub tags: FeedbackTags,
    /// The answer's text as stored.
    pub content: String,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

type F = message_feedback::Column;

/// `message_feedback` joined to its message, session, tool, user and the answer's
/// prompt, narrowed by `filter`.
fn joined(filter: &FeedbackFilter) -> SelectStatement {
    let fb = message_feedback::Entity;
    let mut query = Query::select()
        .from(fb)
        .join(
            JoinType::InnerJoin,
            messages::Entity,
            Expr::col((messages::Entity, messages::Column::Id)).equals((fb, F::MessageId)),
        )
        .join(
            JoinType::InnerJoin,
            sessions::Entity,
            Expr::col((sessions::Entity, sessions::Column::Id)).equals((fb, F::SessionId)),
        )
        .join(
            JoinType::InnerJoin,
            tools::Entity,
            Expr::col((tools::Entity, tools::Column::Id))
                .equals((sessions::Entity, sessions::Column::ToolId)),
        )
        .join(
            JoinType::LeftJoin,
            prompts::Entity,
            Expr::col((prompts::Entity, prompts::Column::Id))
                .equals((messages::Entity, messages::Column::PromptId)),
        )
        .to_owned();
    if let Some(from) = filter.window.from {
        query.and_where(Expr::col((fb, F::CreatedAt)).gte(from));
    }
    if let Some(to) = filter.window.to {
        query.and_where(Expr::col((fb, F::CreatedAt)).lt(to));
    }
    if let Some(rating) = filter.rating {
        query.and_where(Expr::col((fb, F::Rating)).eq(rating.as_str()));
    }
    if let Some(tool_id) = filter.tool_id {
        query.and_where(Expr::col((sessions::Entity, sessions::Column::ToolId)).eq(tool_id));
    }
    if let Some(model) = &filter.model {
        query.and_where(Expr::col((prompts::Entity, prompts::Column::Model)).eq(model.as_str()));
    }
    if let Some(user_id) = filter.user_id {
        query.and_where(Expr::col((fb, F::UserId)).eq(user_id));
    }
    query
}

/// The feedback matching `filter`, newest first (by id), one page after the cursor's id.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    filter: &FeedbackFilter,
    page: PageRequest<Uuid>,
) -> Result<Page<FeedbackEntry, Uuid>> {
    let fb = message_feedback::Entity;
    let mut query = joined(filter);
    query
        .columns([
            (fb, F::Id),
            (fb, F::MessageId),
            (fb, F::SessionId),
            (fb, F::UserId),
            (fb, F::Rating),
            (fb, F::Comment),
            (fb, F::Tags),
            (fb, F::CreatedAt),
            (fb, F::UpdatedAt),
        ])
        .expr_as(Expr::col((users::Entity, users::Column::Name)), "user_name")
        .expr_as(
            Expr::col((users::Entity, users::Column::Email)),
            "user_email",
        )
        .expr_as(
            Expr::col((sessions::Entity, sessions::Column::ToolId)),
            "tool_id",
        )
        .expr_as(Expr::col((tools::Entity, tools::Column::Name)), "tool_name")
        .expr_as(
            Expr::col((prompts::Entity, prompts::Column::Model)),
            "model",
        )
        .expr_as(
            Expr::col((messages::Entity, messages::Column::Content)),
            "content",
        )
        .join(
            JoinType::InnerJoin,
            users::Entity,
            Expr::col((users::Entity, users::Column::Id)).equals((fb, F::UserId)),
        )
        .order_by((fb, F::Id), Order::Desc)
        .limit(page.limit + 1);
    if let Some(after) = page.after {
        query.and_where(Expr::col((fb, F::Id)).lt(after));
    }
    let backend = db.get_database_backend();
    let rows = FeedbackEntry::find_by_statement(backend.build(&query))
        .all(db)
        .await
        .context("listing feedback")?;
    Ok(Page::from_overfetch(rows, page.limit, |e| e.id))
}

/// Ups and downs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub up: u64,
    pub down: u64,
}

/// The counts of one chat tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCounts {
    pub tool_id: Uuid,
    pub tool_name: String,
    pub counts: Counts,
}

/// The counts of one model (`None`: answers no model wrote).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelCounts {
    pub model: Option<String>,
    pub counts: Counts,
}

/// The feedback of a window, counted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Figures {
    pub total: Counts,
    /// By tool id.
    pub by_tool: Vec<ToolCounts>,
    /// By model (answers no model wrote first).
    pub by_model: Vec<ModelCounts>,
}

/// `SUM(CASE WHEN rating = '<rating>' THEN 1 ELSE 0 END)`: the rating is a constant of
/// this file, so it is written into the SQL rather than bound (PostgreSQL cannot type a
/// bound value inside `SUM(CASE …)`).
fn count_of(rating: FeedbackRating) -> Expr {
    Expr::cust(format!(
        "SUM(CASE WHEN \"message_feedback\".\"rating\" = '{}' THEN 1 ELSE 0 END)",
        rating.as_str()
    ))
}

/// Adds the `up` and `down` sums to a grouped query.
fn with_counts(query: &mut SelectStatement) -> &mut SelectStatement {
    query
        .expr_as(count_of(FeedbackRating::Up), "up")
        .expr_as(count_of(FeedbackRating::Down), "down")
}

fn counts(up: i64, down: i64) -> Counts {
    Counts {
        up: u64::try_from(up).unwrap_or(0),
        down: u64::try_from(down).unwrap_or(0),
    }
}

#[derive(Debug, FromQueryResult)]
struct TotalRow {
    up: Option<i64>,
    down: Option<i64>,
}

#[derive(Debug, FromQueryResult)]
struct ToolRow {
    tool_id: Uuid,
    tool_name: String,
    up: i64,
    down: i64,
}

#[derive(Debug, FromQueryResult)]
struct ModelRow {
    model: Option<String>,
    up: i64,
    down: i64,
}

/// Ups and downs in `window`: overall, by tool and by model, each one grouped query.
pub async fn figures<C: ConnectionTrait>(db: &C, window: Window) -> Result<Figures> {
    let backend = db.get_database_backend();
    let filter = FeedbackFilter {
        window,
        ..FeedbackFilter::default()
    };

    let mut total = Query::select().from(message_feedback::Entity).to_owned();
    if let Some(from) = window.from {
        total.and_where(Expr::col((message_feedback::Entity, F::CreatedAt)).gte(from));
    }
    if let Some(to) = window.to {
        total.and_where(Expr::col((message_feedback::Entity, F::CreatedAt)).lt(to));
    }
    with_counts(&mut total);
    let total = TotalRow::find_by_statement(backend.build(&total))
        .one(db)
        .await
        .context("counting feedback")?
        .map_or_else(Counts::default, |r| {
            counts(r.up.unwrap_or(0), r.down.unwrap_or(0))
        });

    let tool_id = Expr::col((sessions::Entity, sessions::Column::ToolId));
    let tool_name = Expr::col((tools::Entity, tools::Column::Name));
    let mut by_tool = joined(&filter);
    with_counts(
        by_tool
            .expr_as(tool_id.clone(), "tool_id")
            .expr_as(tool_name.clone(), "tool_name"),
    )
    .add_group_by([tool_id, tool_name.clone()])
    .order_by_expr(tool_name, Order::Asc)
    .order_by((sessions::Entity, sessions::Column::ToolId), Order::Asc);
    let by_tool = ToolRow::find_by_statement(backend.build(&by_tool))
        .all(db)
        .await
        .context("counting feedback by tool")?
        .into_iter()
        .map(|r| ToolCounts {
            tool_id: r.tool_id,
            tool_name: r.tool_name,
            counts: counts(r.up, r.down),
        })
        .collect();

    let model = Expr::col((prompts::Entity, prompts::Column::Model));
    let mut by_model = joined(&filter);
    with_counts(by_model.expr_as(model.clone(), Alias::new("model")))
        .add_group_by([model.clone()])
        .order_by_expr(model, Order::Asc);
    let mut by_model: Vec<ModelCounts> = ModelRow::find_by_statement(backend.build(&by_model))
        .all(db)
        .await
        .context("counting feedback by model")?
        .into_iter()
        .map(|r| ModelCounts {
            model: r.model,
            counts: counts(r.up, r.down),
        })
        .collect();
    // NULL sorts last on PostgreSQL and first on SQLite: first on both.
    by_model.sort_by_key(|m| m.model.is_some());

    Ok(Figures {
        total,
        by_tool,
        by_model,
    })
}
