//! String-backed enums stored in `varchar(24)` columns.
//!
//! Each value is the snake_case word DESIGN.md §3 uses, both in the database and in JSON
//! (serde), so a row, an API payload and a log line spell a state the same way.

use sea_orm::entity::prelude::*;
use serde::{Deserialize, Serialize};

/// `users.role`: what a person is across the whole deployment.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum UserRole {
    #[sea_orm(string_value = "student")]
    Student,
    #[sea_orm(string_value = "teacher")]
    Teacher,
    #[sea_orm(string_value = "admin")]
    Admin,
}

/// `group_members.role`: what a member may do inside one group.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum MemberRole {
    #[sea_orm(string_value = "member")]
    Member,
    #[sea_orm(string_value = "manager")]
    Manager,
}

/// `enrollments.role`: a person's part in one class.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum EnrollmentRole {
    #[sea_orm(string_value = "student")]
    Student,
    #[sea_orm(string_value = "teacher")]
    Teacher,
}

/// `submissions.state`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum SubmissionState {
    #[sea_orm(string_value = "draft")]
    Draft,
    #[sea_orm(string_value = "submitted")]
    Submitted,
}

/// `messages.role`: who a message speaks for.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum MessageRole {
    #[sea_orm(string_value = "user")]
    User,
    #[sea_orm(string_value = "assistant")]
    Assistant,
    #[sea_orm(string_value = "system")]
    System,
}

/// `prompts.state`, `blocks.type`, `prompts.error_code` and `tool_calls.state` are the
/// protocol's own enums (stored through its `db` feature), so the database, the wire and
/// the API document spell them from one definition.
pub use parley_protocol::error::ErrorCode;
pub use parley_protocol::events::{BlockType, CallError, PromptState, ToolCallState};
/// `sessions.state` is the protocol's too: a job carries the session row
/// ([`parley_protocol::jobs::JobSession`]).
pub use parley_protocol::jobs::SessionState;
/// `sessions.title_source` travels with the session row in a job too.
pub use parley_protocol::jobs::TitleSource;

/// `module_events.outcome`: what a module decided at one hook.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum ModuleOutcome {
    #[sea_orm(string_value = "continue")]
    Continue,
    #[sea_orm(string_value = "modify")]
    Modify,
    #[sea_orm(string_value = "block")]
    Block,
    #[sea_orm(string_value = "error")]
    Error,
    #[sea_orm(string_value = "timeout")]
    Timeout,
}

impl ModuleOutcome {
    /// The stored value (`continue`, `modify`, `block`, `error`, `timeout`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Continue => "continue",
            Self::Modify => "modify",
            Self::Block => "block",
            Self::Error => "error",
            Self::Timeout => "timeout",
        }
    }
}

/// `message_feedback.rating`: what a user thought of an answer.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, EnumIter, DeriveActiveEnum, Serialize, Deserialize,
)]
#[sea_orm(rs_type = "String", db_type = "String(StringLen::N(24))")]
#[serde(rename_all = "snake_case")]
pub enum FeedbackRating {
    /// Thumbs up.
    #[sea_orm(string_value = "up")]
    Up,
    /// Thumbs down.
    #[sea_orm(string_value = "down")]
    Down,
}

impl FeedbackRating {
    /// The stored value (`up`, `down`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Up => "up",
            Self::Down => "down",
        }
    }
}
