//! `module_events`: one row per module per hook run that mattered (it modified, blocked,
//! failed or timed out). Feeds the block metrics of the admin dashboard.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::ModuleOutcome;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "module_events")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub prompt_id: Option<Uuid>,
    pub module: String,
    pub hook: String,
    pub outcome: ModuleOutcome,
    pub duration_ms: i64,
    pub created_at: DateTimeUtc,
    /// Why the module blocked (or modified): a short category word it gave with its
    /// reason (`pii`, `off_topic`, …); absent for outcomes without one.
    pub category: Option<String>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::prompts::Entity",
        from = "Column::PromptId",
        to = "super::prompts::Column::Id",
        on_delete = "SetNull"
    )]
    Prompt,
}

impl Related<super::prompts::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Prompt.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
