//! `quota_refusals`: one row per turn a quota refused.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "quota_refusals")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    /// The group whose limits applied (the tool's, or the ancestor that overrides them).
    pub group_id: Uuid,
    /// The model the turn asked for (the deployment's default when it named none).
    pub model: String,
    /// `turns_per_minute` or `tokens_per_day`.
    pub limit_kind: String,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
