//! `messages`: the transcript. `seq` is gap-free per session (unique with `session_id`);
//! `content` is the rendered text (`[blocked]` for a blocked user message).
//!
//! `prompt_id` names the generation that wrote an assistant message; like
//! `sessions.active_prompt_id` it has no foreign key, since `prompts` references `messages`.
//!
//! The messages of a session are a tree (DESIGN §13): `parent_id` is the message this one
//! follows (none for a first message); siblings are edits of a user message or other
//! answers to one, in creation (`seq`) order. The application keeps it: a parent is
//! always a message of the same session, written before its children.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::MessageRole;

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "messages")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    #[sea_orm(unique_key = "session_seq")]
    pub session_id: Uuid,
    #[sea_orm(unique_key = "session_seq")]
    pub seq: i32,
    pub role: MessageRole,
    #[sea_orm(column_type = "Text")]
    pub content: String,
    pub is_complete: bool,
    pub prompt_id: Option<Uuid>,
    pub created_at: DateTimeUtc,
    pub parent_id: Option<Uuid>,
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
    #[sea_orm(has_many = "super::blocks::Entity")]
    Blocks,
    #[sea_orm(has_many = "super::tool_calls::Entity")]
    ToolCalls,
    #[sea_orm(has_many = "super::message_audit::Entity")]
    MessageAudit,
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

impl Related<super::message_audit::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::MessageAudit.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}
