//! `blocks`: the ordered pieces of one generation (text, thinking, tool calls,
//! attachments), written as they stream. `message_id` is set when the block is finalized
//! into the assistant message; (`prompt_id`, `index`) is unique.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::BlockType;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "blocks")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub message_id: Option<Uuid>,
    #[sea_orm(unique_key = "prompt_index")]
    pub prompt_id: Uuid,
    /// Column `index`: position within the prompt, from 0.
    #[sea_orm(unique_key = "prompt_index")]
    pub index: i32,
    /// Column `type`.
    pub r#type: BlockType,
    #[sea_orm(column_type = "Text")]
    pub content: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub metadata: Json,
    pub is_finalized: bool,
    pub created_at: DateTimeUtc,
    pub updated_at: DateTimeUtc,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::messages::Entity",
        from = "Column::MessageId",
        to = "super::messages::Column::Id",
        on_delete = "SetNull"
    )]
    Message,
    #[sea_orm(
        belongs_to = "super::prompts::Entity",
        from = "Column::PromptId",
        to = "super::prompts::Column::Id",
        on_delete = "Cascade"
    )]
    Prompt,
    #[sea_orm(has_many = "super::tool_calls::Entity")]
    ToolCalls,
}

impl Related<super::messages::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Message.def()
    }
}

impl Related<super::prompts::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Prompt.def()
    }
}

impl Related<super::tool_calls::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ToolCalls.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
