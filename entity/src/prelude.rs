//! Short names for every entity (`Sessions`, `Prompts`, …) and the value enums, so query
//! code can `use parley_entity::prelude::*` instead of naming each module.

pub use super::ai_usage::Entity as AiUsage;
pub use super::api_tokens::Entity as ApiTokens;
pub use super::assignments::Entity as Assignments;
pub use super::blocks::Entity as Blocks;
pub use super::classes::Entity as Classes;
pub use super::enrollments::Entity as Enrollments;
pub use super::extractions::Entity as Extractions;
pub use super::group_members::Entity as GroupMembers;
pub use super::groups::Entity as Groups;
pub use super::message_audit::Entity as MessageAudit;
pub use super::message_feedback::Entity as MessageFeedback;
pub use super::messages::Entity as Messages;
pub use super::module_events::Entity as ModuleEvents;
pub use super::notes::Entity as Notes;
pub use super::prompts::Entity as Prompts;
pub use super::server_secrets::Entity as ServerSecrets;
pub use super::sessions::Entity as Sessions;
pub use super::submissions::Entity as Submissions;
pub use super::timers::Entity as Timers;
pub use super::todos::Entity as Todos;
pub use super::tool_calls::Entity as ToolCalls;
pub use super::tools::Entity as Tools;
pub use super::users::Entity as Users;

pub use super::enums::{
    BlockType, EnrollmentRole, FeedbackRating, MemberRole, MessageRole, ModuleOutcome, PromptState,
    SessionState, SubmissionState, ToolCallState, UserRole,
};
