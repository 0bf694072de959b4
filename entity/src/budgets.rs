//! `budgets`: an admin's spend limit for one user or one group, per UTC day or month,
//! in micro-units of the model prices' currency.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "budgets")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    /// `user` or `group`: which of `user_id` and `group_id` is set.
    pub subject: String,
    pub user_id: Option<Uuid>,
    pub group_id: Option<Uuid>,
    /// `day` or `month` (UTC).
    pub period: String,
    /// The limit in millionths of the currency.
    pub limit_micros: i64,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::users::Entity",
        from = "Column::UserId",
        to = "super::users::Column::Id",
        on_delete = "Cascade"
    )]
    User,
    #[sea_orm(
        belongs_to = "super::groups::Entity",
        from = "Column::GroupId",
        to = "super::groups::Column::Id",
        on_delete = "Cascade"
    )]
    Group,
}

impl ActiveModelBehavior for ActiveModel {}
