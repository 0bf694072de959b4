//! Tools (configured chat assistants): created here; read, paged, changed and deleted
//! through [`resource`](super::resource) with the hooks below.
//!
//! The `definition` arrives already validated by the api (its wire type is the schema);
//! here it is stored as JSON. A tool is deleted only while nothing uses it: sessions and
//! assignments hold it (foreign keys `RESTRICT`).

use std::future::Future;

use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryTrait, Set};
use serde_json::Value;
use uuid::Uuid;

use super::resource::{self, Hold, Resource};
use crate::{
    assignments,
    error::{Error, Result},
    groups, sessions, tools,
};

pub struct NewTool {
    pub group_id: Uuid,
    pub name: String,
    /// Column `type` (e.g. `chat`).
    pub kind: String,
    pub definition: Value,
}

fn group_not_found() -> Error {
    Error::invalid("group_not_found", "the group does not exist")
}

/// Creates a tool in a group (422 `group_not_found` when there is no such group, or
/// when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewTool) -> Result<tools::Model> {
    resource::parent::<groups::Entity, C>(db, new.group_id, group_not_found).await?;
    let now = super::now();
    let row = tools::ActiveModel {
        id: Set(Uuid::now_v7()),
        group_id: Set(new.group_id),
        name: Set(new.name),
        r#type: Set(new.kind),
        definition: Set(new.definition),
        created_at: Set(now),
        updated_at: Set(now),
    };
    resource::insert(db, row, "creating a tool", group_not_found).await
}

/// Fields an update may change; `None` leaves a field as it is. A definition replaces the
/// stored one as a whole; the group never changes.
#[derive(Default)]
pub struct ToolChanges {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub definition: Option<Value>,
}

fn tool_in_use() -> Error {
    Error::conflict(
        "tool_in_use",
        "sessions or assignments use the tool, so it is kept as part of their record",
    )
}

impl Resource for tools::Entity {
    const NOUN: &'static str = "tool";
    const A: &'static str = "a tool";
    const PLURAL: &'static str = "tools";
    type Changes = ToolChanges;
    type New = NewTool;
    type Filter = ();

    fn id_column() -> tools::Column {
        tools::Column::Id
    }

    fn updated_at_column() -> tools::Column {
        tools::Column::UpdatedAt
    }

    fn id_of(tool: &tools::Model) -> Uuid {
        tool.id
    }

    fn create<C: ConnectionTrait>(
        db: &C,
        new: NewTool,
    ) -> impl Future<Output = Result<tools::Model>> + Send {
        create(db, new)
    }

    fn apply(changes: ToolChanges, _: &tools::Model, row: &mut tools::ActiveModel) -> Result<()> {
        if let Some(name) = changes.name {
            row.name = Set(name);
        }
        if let Some(kind) = changes.kind {
            row.r#type = Set(kind);
        }
        if let Some(definition) = changes.definition {
            row.definition = Set(definition);
        }
        Ok(())
    }

    /// Only an unused tool is deleted: sessions and assignments hold it (409
    /// `tool_in_use`).
    fn hold(id: Uuid) -> Option<Hold> {
        Some(Hold {
            holders: vec![
                sessions::Entity::find()
                    .filter(sessions::Column::ToolId.eq(id))
                    .into_query(),
                assignments::Entity::find()
                    .filter(assignments::Column::ToolId.eq(id))
                    .into_query(),
            ],
            conflict: tool_in_use,
        })
    }
}
