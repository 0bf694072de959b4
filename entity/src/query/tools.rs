//! Tools (configured chat assistants): create, read, page, update, delete.
//!
//! The `definition` arrives already validated by the api (its wire type is the schema);
//! here it is stored as JSON. A tool is deleted only while nothing uses it: sessions and
//! assignments hold it (foreign keys `RESTRICT`).

use parley_protocol::config::ToolDefinition;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, SelectExt, Set,
};
use uuid::Uuid;

use super::page::{Page, PageRequest};
use crate::{
    assignments,
    error::{Context, Error, Result},
    sessions, tools,
};

pub struct NewTool {
    pub group_id: Uuid,
    pub name: String,
    /// Column `type` (e.g. `chat`).
    pub kind: String,
    pub definition: ToolDefinition,
}

fn group_not_found() -> Error {
    Error::invalid("group_not_found", "the group does not exist")
}

/// Creates a tool in a group (422 `group_not_found` when there is no such group).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewTool) -> Result<tools::Model> {
    super::groups::find(db, new.group_id)
        .await?
        .ok_or_else(group_not_found)?;
    let now = super::now();
    tools::ActiveModel {
        id: Set(Uuid::now_v7()),
        group_id: Set(new.group_id),
        name: Set(new.name),
        r#type: Set(new.kind),
        definition: Set(new.definition),
        created_at: Set(now),
        updated_at: Set(now),
    }
    .insert(db)
    .await
    .context("creating a tool")
    .map_err(|err| match err {
        // The group was deleted in between.
        Error::Conflict { .. } => group_not_found(),
        other => other,
    })
}

pub async fn find<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<Option<tools::Model>> {
    tools::Entity::find_by_id(id)
        .one(db)
        .await
        .context("reading a tool")
}

pub async fn get<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<tools::Model> {
    find(db, id).await?.ok_or(Error::not_found("tool"))
}

/// All tools, newest first.
pub async fn list<C: ConnectionTrait>(
    db: &C,
    page: PageRequest<Uuid>,
) -> Result<Page<tools::Model, Uuid>> {
    let mut query = tools::Entity::find().order_by_desc(tools::Column::Id);
    if let Some(after) = page.after {
        query = query.filter(tools::Column::Id.lt(after));
    }
    let rows = query
        .limit(page.limit + 1)
        .all(db)
        .await
        .context("listing tools")?;
    Ok(Page::from_overfetch(rows, page.limit, |t| t.id))
}

/// Fields an update may change; `None` leaves a field as it is. A definition replaces the
/// stored one as a whole.
#[derive(Default)]
pub struct ToolChanges {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub definition: Option<ToolDefinition>,
}

pub async fn update<C: ConnectionTrait>(
    db: &C,
    id: Uuid,
    changes: ToolChanges,
) -> Result<tools::Model> {
    let mut tool: tools::ActiveModel = get(db, id).await?.into();
    if let Some(name) = changes.name {
        tool.name = Set(name);
    }
    if let Some(kind) = changes.kind {
        tool.r#type = Set(kind);
    }
    if let Some(definition) = changes.definition {
        tool.definition = Set(definition);
    }
    tool.updated_at = Set(super::now());
    tool.update(db).await.context("updating a tool")
}

fn tool_in_use() -> Error {
    Error::conflict(
        "tool_in_use",
        "sessions or assignments use the tool, so it is kept as part of their record",
    )
}

/// Deletes an unused tool; 409 `tool_in_use` while sessions or assignments refer to it.
/// Checked before deleting: SQLite reports a `RESTRICT` violation in a way the generic
/// classification does not recognise.
pub async fn delete<C: ConnectionTrait>(db: &C, id: Uuid) -> Result<()> {
    let attempt = "checking whether a tool is in use";
    let sessions = sessions::Entity::find().filter(sessions::Column::ToolId.eq(id));
    let assignments = assignments::Entity::find().filter(assignments::Column::ToolId.eq(id));
    if sessions.exists(db).await.context(attempt)?
        || assignments.exists(db).await.context(attempt)?
    {
        return Err(tool_in_use());
    }
    match tools::Entity::delete_by_id(id)
        .exec(db)
        .await
        .context("deleting a tool")
    {
        Ok(res) if res.rows_affected == 0 => Err(Error::not_found("tool")),
        Ok(_) => Ok(()),
        // A session or assignment appeared in between (PostgreSQL reports a conflict).
        Err(Error::Conflict { .. }) => Err(tool_in_use()),
        Err(other) => Err(other),
    }
}
