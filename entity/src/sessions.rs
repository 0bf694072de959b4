//! `sessions`: one conversation between a user and a tool.
//!
//! `config` is the resolved tool/assignment cascade frozen at start (a typed
//! [`SessionConfig`], read tolerantly: rows of earlier versions load). `active_prompt_id`
//! points at the generation in flight; it has no foreign key because `prompts` already
//! references `sessions` (a cycle), so the application keeps it consistent.

use parley_protocol::{config::SessionConfig, jobs::JobSession};
use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

use crate::enums::{SessionState, TitleSource};

#[derive(Clone, Debug, PartialEq, Eq, DeriveEntityModel, Serialize, Deserialize)]
#[sea_orm(table_name = "sessions")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub user_id: Uuid,
    pub tool_id: Uuid,
    pub assignment_id: Option<Uuid>,
    pub submission_id: Option<Uuid>,
    pub state: SessionState,
    pub started_at: DateTimeUtc,
    pub ended_at: Option<DateTimeUtc>,
    pub last_activity_at: DateTimeUtc,
    pub message_count: i32,
    #[sea_orm(column_type = "JsonBinary")]
    pub config: SessionConfig,
    pub active_prompt_id: Option<Uuid>,
    pub end_reason: Option<String>,
    /// The `/v1/ask` conversation this session is (its request id), if any.
    pub rid: Option<String>,
    /// The last message of the branch the session shows and continues (DESIGN §13):
    /// every message a turn writes becomes it; switching branches sets it.
    pub active_leaf_id: Option<Uuid>,
    /// What the session is called (at most [`TITLE_MAX_CHARS`]); `None` until the first
    /// exchange finishes or the owner names it.
    #[sea_orm(column_type = "Text", nullable)]
    pub title: Option<String>,
    /// Who wrote `title`: [`TitleSource`]; `None` exactly when the title is.
    pub title_source: Option<TitleSource>,
    /// When the owner pinned it (pinned sessions list first).
    pub pinned_at: Option<DateTimeUtc>,
    /// When the owner archived it (archived sessions leave the default list).
    pub archived_at: Option<DateTimeUtc>,
    /// When the owner deleted it: its content is gone and only the usage ledger refers
    /// to it; every user-facing read answers 404.
    pub deleted_at: Option<DateTimeUtc>,
}

/// The longest title a session takes, in characters.
pub const TITLE_MAX_CHARS: usize = 200;

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {
    #[sea_orm(
        belongs_to = "super::users::Entity",
        from = "Column::UserId",
        to = "super::users::Column::Id",
        on_delete = "Restrict"
    )]
    User,
    #[sea_orm(
        belongs_to = "super::tools::Entity",
        from = "Column::ToolId",
        to = "super::tools::Column::Id",
        on_delete = "Restrict"
    )]
    Tool,
    #[sea_orm(
        belongs_to = "super::assignments::Entity",
        from = "Column::AssignmentId",
        to = "super::assignments::Column::Id",
        on_delete = "SetNull"
    )]
    Assignment,
    #[sea_orm(
        belongs_to = "super::submissions::Entity",
        from = "Column::SubmissionId",
        to = "super::submissions::Column::Id",
        on_delete = "SetNull"
    )]
    Submission,
    #[sea_orm(has_many = "super::messages::Entity")]
    Messages,
    #[sea_orm(has_many = "super::prompts::Entity")]
    Prompts,
    #[sea_orm(has_many = "super::tool_calls::Entity")]
    ToolCalls,
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

impl Related<super::assignments::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Assignment.def()
    }
}

impl Related<super::submissions::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Submission.def()
    }
}

impl Related<super::messages::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Messages.def()
    }
}

impl Related<super::prompts::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::Prompts.def()
    }
}

impl Related<super::tool_calls::Entity> for Entity {
    fn to() -> RelationDef {
        Relation::ToolCalls.def()
    }
}

impl ActiveModelBehavior for ActiveModel {}

impl From<Model> for JobSession {
    fn from(s: Model) -> Self {
        Self {
            id: s.id,
            user_id: s.user_id,
            tool_id: s.tool_id,
            assignment_id: s.assignment_id,
            submission_id: s.submission_id,
            state: s.state,
            started_at: s.started_at,
            ended_at: s.ended_at,
            last_activity_at: s.last_activity_at,
            message_count: s.message_count,
            config: s.config,
            active_prompt_id: s.active_prompt_id,
            end_reason: s.end_reason,
            rid: s.rid,
            active_leaf_id: s.active_leaf_id,
            title: s.title,
            title_source: s.title_source,
            pinned_at: s.pinned_at,
            archived_at: s.archived_at,
            deleted_at: s.deleted_at,
        }
    }
}

impl From<JobSession> for Model {
    fn from(s: JobSession) -> Self {
        Self {
            id: s.id,
            user_id: s.user_id,
            tool_id: s.tool_id,
            assignment_id: s.assignment_id,
            submission_id: s.submission_id,
            state: s.state,
            started_at: s.started_at,
            ended_at: s.ended_at,
            last_activity_at: s.last_activity_at,
            message_count: s.message_count,
            config: s.config,
            active_prompt_id: s.active_prompt_id,
            end_reason: s.end_reason,
            rid: s.rid,
            active_leaf_id: s.active_leaf_id,
            title: s.title,
            title_source: s.title_source,
            pinned_at: s.pinned_at,
            archived_at: s.archived_at,
            deleted_at: s.deleted_at,
        }
    }
}
