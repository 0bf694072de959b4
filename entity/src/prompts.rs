//! `prompts`: one generation (one turn of the model), driven through the state machine of
//! DESIGN.md §4 by guarded updates.
//!
//! `cancel_requested_at` makes a cancel durable before it is signalled; `idempotency_key`
//! is unique per session so a retried `POST` finds the prompt it already created.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use parley_protocol::{events::ResponseExtras, route::RouteDecision, turn::TurnInput};

use crate::enums::{ErrorCode, PromptState};

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "prompts")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique_key = "session_idempotency_key")]
    pub session_id: Uuid,
    pub user_message_id: Option<Uuid>,
    pub assistant_message_id: Option<Uuid>,
    pub state: PromptState,
    pub attempt: i32,
    pub model: Option<String>,
    pub vendor: Option<String>,
    /// The skill router's decision (DESIGN §5.3), for every routed turn.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub route: Option<RouteDecision>,
    #[sea_orm(column_type = "Text", nullable)]
    pub system_message: Option<String>,
    pub error_code: Option<ErrorCode>,
    #[sea_orm(column_type = "Text", nullable)]
    pub error: Option<String>,
    #[sea_orm(unique_key = "session_idempotency_key")]
    pub idempotency_key: Option<String>,
    pub cancel_requested_at: Option<DateTimeUtc>,
    pub created_at: DateTimeUtc,
    pub started_at: Option<DateTimeUtc>,
    pub completed_at: Option<DateTimeUtc>,
    /// What the user sent; saved as the user message by the worker after
    /// `chat:before_ai`.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub input: Option<TurnInput>,
    /// The worker that owns the prompt while it is `in_progress`.
    pub lease_owner: Option<String>,
    /// Until when that worker owns it; a redelivered job may claim it after this.
    pub lease_expires_at: Option<DateTimeUtc>,
    /// What the finished answer carries besides its text: payload and suggestions.
    #[sea_orm(column_type = "JsonBinary", nullable)]
    pub response: Option<ResponseExtras>,
    /// No event of the prompt has a `seq` above this (DESIGN §6): raised a block at a
    /// time while it runs, set to the terminal event's seq when it finishes. A lost event
    /// log starts again above it; a rebuilt feed numbers after it.
    pub seq_ceiling: i64,
    /// The SHA-256 (hex) of what the request asked, for a request with an
    /// `Idempotency-Key`: a replay of the key with another request is refused.
    pub request_hash: Option<String>,
}

/// Two relations lead to `messages` (the user's message and the answer), so this entity
/// implements no `Related<messages::Entity>`; join with `Relation::UserMessage` or
/// `Relation::AssistantMessage` explicitly.
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
        belongs_to = "super::messages::Entity",
        from = "Column::UserMessageId",
        to = "super::messages::Column::Id",
        on_delete = "SetNull"
    )]
    UserMessage,
    #[sea_orm(
        belongs_to = "super::messages::Entity",
        from = "Column::AssistantMessageId",
        to = "super::messages::Column::Id",
        on_delete = "SetNull"
    )]
    AssistantMessage,
    #[sea_orm(has_many = "super::blocks::Entity")]
    Blocks,
    #[sea_orm(has_many = "super::tool_calls::Entity")]
    ToolCalls,
    #[sea_orm(has_many = "super::module_events::Entity")]
    ModuleEvents,
    #[sea_orm(has_many = "super::ai_usage::Entity")]
    AiUsage,
}

impl Related<super::sessions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Session.def()
    }
}

impl Related<super::blocks::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Blocks.def()
    }
}

impl Related<super::tool_calls::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ToolCalls.def()
    }
}

impl Related<super::module_events::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ModuleEvents.def()
    }
}

impl Related<super::ai_usage::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::AiUsage.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
