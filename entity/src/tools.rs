//! `tools`: configured chat assistants a session is opened with (DESIGN.md "Words").
//!
//! `definition` is a [`ToolDefinition`] (behavior, model, constraints, modules,
//! functions, limits, switches); opening a session resolves it, with the group settings
//! above it and the assignment's config below, into `sessions.config`.

use parley_protocol::config::ToolDefinition;
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "tools")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub group_id: Uuid,
    pub name: String,
    /// Column `type`.
    pub r#type: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub definition: ToolDefinition,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::groups::Entity",
        from = "Column::GroupId",
        to = "super::groups::Column::Id",
        on_delete = "Restrict"
    )]
    Group,
    #[sea_orm(has_many = "super::assignments::Entity")]
    Assignments,
    #[sea_orm(has_many = "super::sessions::Entity")]
    Sessions,
}

impl Related<super::groups::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Group.def()
    }
}

impl Related<super::assignments::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Assignments.def()
    }
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Sessions.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
