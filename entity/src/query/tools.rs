//! Tools (configured chat assistants): created here; read, paged, changed and deleted
//! through [`resource`] with the hooks below.
//!
//! The `definition` arrives already validated by the api (its wire type is the schema);
//! here it is stored as JSON. A tool is deleted only while nothing uses it: sessions and
//! assignments hold it (foreign keys `RESTRICT`).

use parley_protocol::config::ToolDefinition;
use parley_protocol::error::{ErrorCode, Result};
use sea_orm::{ConnectionTrait, Set};
use uuid::Uuid;

use super::resource::{
    self, Hold, Resource,
    names::{Named, Names},
    rows,
};
use crate::{assignments, groups, sessions, tools};

pub struct NewTool {
    pub group_id: Uuid,
    pub name: String,
    /// Column `type` (e.g. `chat`).
    pub kind: String,
    pub definition: ToolDefinition,
}

/// Creates a tool in a group (422 `group_not_found` when there is no such group, or
/// when it is deleted in between).
pub async fn create<C: ConnectionTrait>(db: &C, new: NewTool) -> Result<tools::Model> {
    let row = tools::ActiveModel {
        group_id: Set(new.group_id),
        name: Set(new.name),
        r#type: Set(new.kind),
        definition: Set(new.definition),
        ..Default::default()
    };
    super::groups::insert_in::<tools::Entity, C>(db, new.group_id, row).await
}

/// Fields an update may change; `None` leaves a field as it is. A definition replaces the
/// stored one as a whole; the group never changes.
#[derive(Default)]
pub struct ToolChanges {
    pub name: Option<String>,
    pub kind: Option<String>,
    pub definition: Option<ToolDefinition>,
}

impl Resource for tools::Entity {
    rows! { tools: "tool" / "a tool" / "tools", NewTool, ToolChanges, () }

    /// The names of the tools' groups.
    type Refs = Names;

    async fn refs<C: ConnectionTrait>(db: &C, rows: &[tools::Model]) -> Result<Names> {
        groups::Entity::names(db, rows.iter().map(|t| t.group_id)).await
    }

    fn apply(changes: ToolChanges, row: &mut tools::ActiveModel) -> Result<()> {
        resource::set(&mut row.name, changes.name);
        resource::set(&mut row.r#type, changes.kind);
        resource::set(&mut row.definition, changes.definition);
        Ok(())
    }

    /// Only an unused tool is deleted: sessions and assignments hold it (409
    /// `tool_in_use`).
    fn hold(id: Uuid) -> Option<Hold> {
        let holders = vec![
            resource::held_by(sessions::Column::ToolId, id),
            resource::held_by(assignments::Column::ToolId, id),
        ];
        let message = "sessions or assignments use the tool, so it is kept as part of their record";
        Some(Hold::new(ErrorCode::ToolInUse, message, holders))
    }
}
