//! `ai_usage`: one row per LLM call, including calls that were cancelled, failed mid-way,
//! fell back to another model or ran inside the tool loop (partial usage counts).

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "ai_usage")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub prompt_id: Uuid,
    pub message_id: Option<Uuid>,
    pub session_id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    pub model: String,
    pub vendor: String,
    /// Every input token of the call; the two below are parts of it.
    pub input_tokens: i64,
    /// Every output token of the call; `reasoning_tokens` is a part of it.
    pub output_tokens: i64,
    /// Input read from the provider's prompt cache.
    pub cached_input_tokens: i64,
    /// Input written to the provider's prompt cache.
    pub cache_write_tokens: i64,
    /// Output the model spent thinking.
    pub reasoning_tokens: i64,
    pub cost_usd: f64,
    pub latency_ms: i64,
    pub ttft_ms: Option<i64>,
    /// How the call failed; `None`: it did not.
    pub error: Option<crate::enums::CallError>,
    pub created_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::prompts::Entity",
        from = "Column::PromptId",
        to = "super::prompts::Column::Id",
        on_delete = "Cascade"
    )]
    Prompt,
    #[sea_orm(
        belongs_to = "super::messages::Entity",
        from = "Column::MessageId",
        to = "super::messages::Column::Id",
        on_delete = "SetNull"
    )]
    Message,
    #[sea_orm(
        belongs_to = "super::sessions::Entity",
        from = "Column::SessionId",
        to = "super::sessions::Column::Id",
        on_delete = "Cascade"
    )]
    Session,
    #[sea_orm(
        belongs_to = "super::users::Entity",
        from = "Column::UserId",
        to = "super::users::Column::Id",
        on_delete = "Cascade"
    )]
    User,
    #[sea_orm(
        belongs_to = "super::tools::Entity",
        from = "Column::ToolId",
        to = "super::tools::Column::Id",
        on_delete = "Cascade"
    )]
    Tool,
}

impl Related<super::prompts::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Prompt.def()
    }
}

impl Related<super::messages::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Message.def()
    }
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Session.def()
    }
}

impl Related<super::users::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::User.def()
    }
}

impl Related<super::tools::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Tool.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
