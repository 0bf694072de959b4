//! `users`: people who sign in. `permissions` is a JSON list of permission entries on top
//! of what `role` grants by default: `name` grants a permission, `-name` revokes it (see
//! `query::users::effective_permissions`).

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::UserRole;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "users")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique)]
    pub email: String,
    pub name: String,
    pub role: UserRole,
    #[sea_orm(column_type = "JsonBinary")]
    pub permissions: Json,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
    /// Set when an admin disabled the user: they authenticate nobody until enabled.
    pub disabled_at: Option<DateTimeUtc>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(has_many = "super::group_members::Entity")]
    GroupMembers,
    #[sea_orm(has_many = "super::api_tokens::Entity")]
    ApiTokens,
    #[sea_orm(has_many = "super::enrollments::Entity")]
    Enrollments,
    #[sea_orm(has_many = "super::submissions::Entity")]
    Submissions,
    #[sea_orm(has_many = "super::sessions::Entity")]
    Sessions,
    #[sea_orm(has_many = "super::todos::Entity")]
    Todos,
    #[sea_orm(has_many = "super::notes::Entity")]
    Notes,
    #[sea_orm(has_many = "super::timers::Entity")]
    Timers,
}

impl Related<super::group_members::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::GroupMembers.def()
    }
}

impl Related<super::api_tokens::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ApiTokens.def()
    }
}

impl Related<super::enrollments::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Enrollments.def()
    }
}

impl Related<super::submissions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Submissions.def()
    }
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Sessions.def()
    }
}

impl Related<super::todos::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Todos.def()
    }
}

impl Related<super::notes::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Notes.def()
    }
}

impl Related<super::timers::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Timers.def()
    }
}

/// Groups a user belongs to, through `group_members`.
impl Related<super::groups::Entity> for Entity {
    fn to() -> RelationDef {
        super::group_members::Relation::Group.def()
    }

    fn via() -> Option<RelationDef> {
        Some(super::group_members::Relation::User.def().rev())
    }
}

/// Classes a user is enrolled in, through `enrollments`.
impl Related<super::classes::Entity> for Entity {
    fn to() -> RelationDef {
        super::enrollments::Relation::Class.def()
    }

    fn via() -> Option<RelationDef> {
        Some(super::enrollments::Relation::User.def().rev())
    }
}

impl ActiveModelBehavior for ActiveModel {}
