//! The rows behind the admin figures, for drilling down from a total: the LLM calls
//! (`ai_usage`) matching the usage view's filters, and the module events matching a
//! module, outcome and category, newest first, paged by (`created_at`, `id`).

use parley_protocol::error::Result;
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder, QuerySelect,
    prelude::DateTimeUtc, sea_query::Query,
};
use uuid::Uuid;

use super::{Window, blocks::UNCATEGORIZED, usage::UsageFilter};
use crate::{
    ai_usage,
    enums::ModuleOutcome,
    error::Context,
    module_events, prompts,
    query::page::{Page, PageRequest},
    tools, users,
};

/// The key a listing pages by: the last row's time and id.
pub type RowKey = (DateTimeUtc, Uuid);

/// One LLM call, with the names of its user and tool.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub row: ai_usage::Model,
    /// `None` when the user or tool is gone.
    pub user_name: Option<String>,
    pub user_email: Option<String>,
    pub tool_name: Option<String>,
}

/// `created_at, id` before `after` (newest first).
fn before(created_at: impl ColumnTrait, id: impl ColumnTrait, after: RowKey) -> Condition {
    Condition::any().add(created_at.lt(after.0)).add(
        Condition::all()
            .add(created_at.eq(after.0))
            .add(id.lt(after.1)),
    )
}

/// The calls matching `filter`, newest first.
pub async fn calls<C: ConnectionTrait>(
    db: &C,
    filter: &UsageFilter,
    page: PageRequest<RowKey>,
) -> Result<Page<Call, RowKey>> {
    use ai_usage::Column as U;
    let mut query = ai_usage::Entity::find();
    if let Some(from) = filter.window.from {
        query = query.filter(U::CreatedAt.gte(from));
    }
    if let Some(to) = filter.window.to {
        query = query.filter(U::CreatedAt.lt(to));
    }
    if let Some(model) = &filter.model {
        query = query.filter(U::Model.eq(model.as_str()));
    }
    if let Some(user_id) = filter.user_id {
        query = query.filter(U::UserId.eq(user_id));
    }
    if let Some(tool_id) = filter.tool_id {
        query = query.filter(U::ToolId.eq(tool_id));
    }
    if let Some(group_id) = filter.group_id {
        query = query.filter(
            U::ToolId.in_subquery(
                Query::select()
                    .column(tools::Column::Id)
                    .from(tools::Entity)
                    .and_where(tools::Column::GroupId.eq(group_id))
                    .to_owned(),
            ),
        );
    }
    if let Some(after) = page.after {
        query = query.filter(before(U::CreatedAt, U::Id, after));
    }
    let rows = query
        .order_by_desc(U::CreatedAt)
        .order_by_desc(U::Id)
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing LLM calls")?;
    let page = Page::from_overfetch(rows, page.limit, |r| (r.created_at, r.id));
    let user_ids: Vec<Uuid> = page.items.iter().map(|r| r.user_id).collect();
    let tool_ids: Vec<Uuid> = page.items.iter().map(|r| r.tool_id).collect();
    let users: Vec<(Uuid, String, String)> = users::Entity::find()
        .select_only()
        .columns([users::Column::Id, users::Column::Name, users::Column::Email])
        .filter(users::Column::Id.is_in(user_ids))
        .into_tuple()
        .all(db)
        .await
        .context("naming users")?;
    let tools: Vec<(Uuid, String)> = tools::Entity::find()
        .select_only()
        .columns([tools::Column::Id, tools::Column::Name])
        .filter(tools::Column::Id.is_in(tool_ids))
        .into_tuple()
        .all(db)
        .await
        .context("naming tools")?;
    Ok(page.map(|row| {
        let user = users.iter().find(|(id, ..)| *id == row.user_id);
        Call {
            user_name: user.map(|(_, name, _)| name.clone()),
            user_email: user.map(|(_, _, email)| email.clone()),
            tool_name: tools
                .iter()
                .find(|(id, _)| *id == row.tool_id)
                .map(|(_, name)| name.clone()),
            row,
        }
    }))
}

/// Which module events to list.
#[derive(Debug, Clone, Default)]
pub struct EventFilter {
    pub window: Window,
    pub module: Option<String>,
    pub outcome: Option<ModuleOutcome>,
    /// The category, [`UNCATEGORIZED`] for events recorded without one.
    pub category: Option<String>,
}

/// One module event, with its prompt's session when the prompt is still there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    pub row: module_events::Model,
    pub session_id: Option<Uuid>,
}

/// The module events matching `filter`, newest first.
pub async fn events<C: ConnectionTrait>(
    db: &C,
    filter: &EventFilter,
    page: PageRequest<RowKey>,
) -> Result<Page<Event, RowKey>> {
    use module_events::Column as E;
    let mut query = module_events::Entity::find();
    if let Some(from) = filter.window.from {
        query = query.filter(E::CreatedAt.gte(from));
    }
    if let Some(to) = filter.window.to {
        query = query.filter(E::CreatedAt.lt(to));
    }
    if let Some(module) = &filter.module {
        query = query.filter(E::Module.eq(module.as_str()));
    }
    if let Some(outcome) = filter.outcome {
        query = query.filter(E::Outcome.eq(outcome));
    }
    match filter.category.as_deref() {
        Some(UNCATEGORIZED) => {
            query = query.filter(
                Condition::any()
                    .add(E::Category.is_null())
                    .add(E::Category.eq(UNCATEGORIZED)),
            )
        }
        Some(category) => query = query.filter(E::Category.eq(category)),
        None => {}
    }
    if let Some(after) = page.after {
        query = query.filter(before(E::CreatedAt, E::Id, after));
    }
    let rows = query
        .order_by_desc(E::CreatedAt)
        .order_by_desc(E::Id)
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing module events")?;
    let page = Page::from_overfetch(rows, page.limit, |r| (r.created_at, r.id));
    let prompt_ids: Vec<Uuid> = page.items.iter().filter_map(|r| r.prompt_id).collect();
    let sessions: Vec<(Uuid, Uuid)> = prompts::Entity::find()
        .select_only()
        .columns([prompts::Column::Id, prompts::Column::SessionId])
        .filter(prompts::Column::Id.is_in(prompt_ids))
        .into_tuple()
        .all(db)
        .await
        .context("finding the events' sessions")?;
    Ok(page.map(|row| Event {
        session_id: row
            .prompt_id
            .and_then(|p| sessions.iter().find(|(id, _)| *id == p).map(|(_, s)| *s)),
        row,
    }))
}
