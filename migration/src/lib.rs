//! Parley's schema, as ordered sea-orm migrations that run on both PostgreSQL (distributed
//! mode) and SQLite (embedded mode). `parley migrate` drives [`Migrator`].
//!
//! The schema is written out by hand with `Table::create()` rather than derived from the
//! entities in `parley-entity`, so a change to a model never silently changes the
//! database; the entities mirror these tables. Portability rules: foreign keys are
//! declared inside `CREATE TABLE` (SQLite cannot add them later), enums are `varchar(24)`
//! strings, JSON is `json_binary` (jsonb on PostgreSQL), and unique constraints are unique
//! indexes. Each migration's `down` drops its tables children first.

use sea_orm_migration::prelude::*;

/// Re-exported so callers can run `Migrator::up` without depending on sea-orm-migration.
pub use sea_orm_migration::MigratorTrait;

mod common;
mod m20261121_000001_create_identity;
mod m20261121_000002_create_tools_and_classes;
mod m20261121_000003_create_conversations;
mod m20261121_000004_create_moderation_and_usage;
mod m20261121_000005_create_builtin_data;
mod m20261122_000006_add_prompt_input_and_lease;
mod m20261123_000007_create_server_secrets;
mod m20261123_000008_create_message_search;
mod m20261123_000009_add_prompt_response;
mod m20261123_000010_create_files;
mod m20261123_000011_add_module_event_category;
mod m20261123_000012_add_timer_pause;
mod m20261124_000013_add_usage_error;
mod m20261124_000014_add_session_rid;
mod m20261124_000015_add_prompt_seq_ceiling;
mod m20261124_000016_create_schedule_and_archive;
mod m20261124_000017_create_quota_refusals;
mod m20261126_000018_add_user_disabled;
mod m20261126_000019_add_prompt_request_hash;
mod m20261126_000020_create_message_tree;
mod m20261126_000021_add_session_management;
mod m20261126_000022_timer_due_index;
mod m20261126_000023_add_tool_call_approvals;
mod m20261126_000024_create_message_feedback;
mod m20261126_000025_create_budgets;
mod m20261126_000026_create_metric_rollups;
mod m20261127_000027_prompt_waiting_index;
mod m20261202_000028_add_tool_call_provider_state;
mod m20261202_000029_add_usage_token_kinds;
mod m20261202_000030_create_session_summaries;
mod m20261203_000031_client_call_index;

#[cfg(test)]
mod tests;

/// Every migration, oldest first.
pub struct Migrator;

#[async_trait::async_trait]
impl MigratorTrait for Migrator {
    fn migrations() -> Vec<Box<dyn MigrationTrait>> {
        vec![
            Box::new(m20261121_000001_create_identity::Migration),
            Box::new(m20261121_000002_create_tools_and_classes::Migration),
            Box::new(m20261121_000003_create_conversations::Migration),
            Box::new(m20261121_000004_create_moderation_and_usage::Migration),
            Box::new(m20261121_000005_create_builtin_data::Migration),
            Box::new(m20261122_000006_add_prompt_input_and_lease::Migration),
            Box::new(m20261123_000007_create_server_secrets::Migration),
            Box::new(m20261123_000008_create_message_search::Migration),
            Box::new(m20261123_000009_add_prompt_response::Migration),
            Box::new(m20261123_000010_create_files::Migration),
            Box::new(m20261123_000011_add_module_event_category::Migration),
            Box::new(m20261123_000012_add_timer_pause::Migration),
            Box::new(m20261124_000013_add_usage_error::Migration),
            Box::new(m20261124_000014_add_session_rid::Migration),
            Box::new(m20261124_000015_add_prompt_seq_ceiling::Migration),
            Box::new(m20261124_000016_create_schedule_and_archive::Migration),
            Box::new(m20261124_000017_create_quota_refusals::Migration),
            Box::new(m20261126_000018_add_user_disabled::Migration),
            Box::new(m20261126_000019_add_prompt_request_hash::Migration),
            Box::new(m20261126_000020_create_message_tree::Migration),
            Box::new(m20261126_000021_add_session_management::Migration),
            Box::new(m20261126_000022_timer_due_index::Migration),
            Box::new(m20261126_000023_add_tool_call_approvals::Migration),
            Box::new(m20261126_000024_create_message_feedback::Migration),
            Box::new(m20261126_000025_create_budgets::Migration),
            Box::new(m20261126_000026_create_metric_rollups::Migration),
            Box::new(m20261127_000027_prompt_waiting_index::Migration),
            Box::new(m20261202_000028_add_tool_call_provider_state::Migration),
            Box::new(m20261202_000029_add_usage_token_kinds::Migration),
            Box::new(m20261202_000030_create_session_summaries::Migration),
            Box::new(m20261203_000031_client_call_index::Migration),
        ]
    }
}
