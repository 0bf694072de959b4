//! `tool_calls`: one call of a function by the model.
//!
//! Unique (`prompt_id`, `api_tool_call_id`): a retried turn finds a finished call and
//! reuses its result instead of running the side effect twice.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::ToolCallState;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "tool_calls")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub session_id: Uuid,
    #[sea_orm(unique_key = "prompt_api_tool_call")]
    pub prompt_id: Uuid,
    pub block_id: Option<Uuid>,
    pub message_id: Option<Uuid>,
    #[sea_orm(unique_key = "prompt_api_tool_call")]
    pub api_tool_call_id: String,
    pub tool_name: String,
    #[sea_orm(column_type = "JsonBinary")]
    pub tool_args: Json,
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub tool_result: Option<Json>,
    pub state: ToolCallState,
    #[sea_orm(column_type = "Text", nullable)]
    pub error_message: Option<String>,
    pub started_at: Option<DateTimeUtc>,
    pub completed_at: Option<DateTimeUtc>,
    pub duration_ms: Option<i64>,
    pub created_at: DateTimeUtc,
    /// When `tool_args` and `tool_result` moved to `tool_call_archive` (they are JSON
    /// `null` here since).
    pub archived_at: Option<DateTimeUtc>,
    /// When a call waiting for approval is denied if no one decided.
    pub approval_expires_at: Option<DateTimeUtc>,
    /// Who approved or denied it (none: it expired, or never waited).
    pub decided_by: Option<Uuid>,
    pub decided_at: Option<DateTimeUtc>,
    /// Why it was denied.
    #[sea_orm(column_type = "Text", nullable)]
    pub decision_reason: Option<String>,
    /// What the model asked for, when the owner approved edited arguments.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub requested_args: Option<Json>,
    /// What the call's provider must see again of the response that made it (its round,
    /// the text before the calls, reasoning state, the call's opaque fields), typed by
    /// the worker (`parley_worker::agent_loop::round`); null for older rows.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub provider_state: Option<Json>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::sessions::Entity",
        from = "Column::SessionId",
        to = "super::sessions::Column::Id",
        on_delete = "Cascade"
    )]
    Session,
    #[sea_orm(
        belongs_to = "super::prompts::Entity",
        from = "Column::PromptId",
        to = "super::prompts::Column::Id",
        on_delete = "Cascade"
    )]
    Prompt,
    #[sea_orm(
        belongs_to = "super::blocks::Entity",
        from = "Column::BlockId",
        to = "super::blocks::Column::Id",
        on_delete = "SetNull"
    )]
    Block,
    #[sea_orm(
        belongs_to = "super::messages::Entity",
        from = "Column::MessageId",
        to = "super::messages::Column::Id",
        on_delete = "SetNull"
    )]
    Message,
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Session.def()
    }
}

impl Related<super::prompts::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Prompt.def()
    }
}

impl Related<super::blocks::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Block.def()
    }
}

impl Related<super::messages::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Message.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
