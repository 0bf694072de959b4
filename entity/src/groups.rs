//! `groups`: the organisation tree (schools, departments, …) that owns tools and classes.
//!
//! `path` is a materialized path of ids (`/<root>/<child>/`), so "everything under this
//! group" is one `LIKE '/<id>/%'` query instead of a recursive walk. `settings` are
//! [`ConfigOverrides`] over the tools of the group and its sub-groups.

use parley_protocol::config::ConfigOverrides;
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "groups")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub path: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub settings: ConfigOverrides,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "Entity",
        from = "Column::ParentId",
        to = "Column::Id",
        on_delete = "Restrict"
    )]
    Parent,
    #[sea_orm(has_many = "super::group_members::Entity")]
    GroupMembers,
    #[sea_orm(has_many = "super::tools::Entity")]
    Tools,
    #[sea_orm(has_many = "super::classes::Entity")]
    Classes,
}

impl Related<super::group_members::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::GroupMembers.def()
    }
}

impl Related<super::tools::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Tools.def()
    }
}

impl Related<super::classes::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Classes.def()
    }
}

/// Members of a group, through `group_members`.
impl Related<super::users::Entity> for Entity {
    fn to() -> RelationDef {
        super::group_members::Relation::User.def()
    }

    fn via() -> Option<RelationDef> {
        Some(super::group_members::Relation::Group.def().rev())
    }
}

impl ActiveModelBehavior for ActiveModel {}
