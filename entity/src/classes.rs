//! `classes`: a course inside a group; people join through `enrollments` and work on
//! `assignments`.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "classes")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub group_id: Uuid,
    pub name: String,
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
    #[sea_orm(has_many = "super::enrollments::Entity")]
    Enrollments,
    #[sea_orm(has_many = "super::assignments::Entity")]
    Assignments,
}

impl Related<super::groups::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Group.def()
    }
}

impl Related<super::enrollments::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Enrollments.def()
    }
}

impl Related<super::assignments::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Assignments.def()
    }
}

/// People in a class, through `enrollments`.
impl Related<super::users::Entity> for Entity {
    fn to() -> RelationDef {
        super::enrollments::Relation::User.def()
    }

    fn via() -> Option<RelationDef> {
        Some(super::enrollments::Relation::Class.def().rev())
    }
}

impl ActiveModelBehavior for ActiveModel {}
