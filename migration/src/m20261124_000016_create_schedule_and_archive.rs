//! Scheduled background work (DESIGN §10, issue #10 item 9):
//!
//! * `scheduled_tasks` — one row per background task (`reap`, `close_idle_sessions`,
//!   `expire_event_logs`, `archive_tool_payloads`). A worker runs a task only when it
//!   takes the task's current slot: a guarded `UPDATE` that sets `last_started_at` when
//!   the last start is a whole period old, so one worker among many runs each period.
//!   The row also tells operators when each task last ran, how, and how often.
//! * `tool_call_archive` — the arguments and results of function calls older than the
//!   payload retention, moved out of `tool_calls` (whose `archived_at` says so): the hot
//!   table keeps each call's name, state and timings for metrics; the payloads stay
//!   readable (a rebuilt feed reads them back) until an operator drops or exports them.
//! * an index on `prompts (completed_at)`, for the pass that looks for finished prompts
//!   whose event log was left without retention.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{
    add_column, drop_column, drop_tables, fk, index, timestamp_utc, timestamp_utc_null,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ScheduledTasks {
    Table,
    Name,
    Runner,
    LastStartedAt,
    LastFinishedAt,
    LastOutcome,
    Runs,
}

#[derive(DeriveIden)]
enum ToolCallArchive {
    Table,
    Id,
    ToolArgs,
    ToolResult,
    ArchivedAt,
}

#[derive(DeriveIden)]
enum ToolCalls {
    Table,
    ArchivedAt,
}

#[derive(DeriveIden)]
enum Prompts {
    Table,
    CompletedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ScheduledTasks::Table)
                    .col(string_len(ScheduledTasks::Name, 64).primary_key())
                    .col(string_null(ScheduledTasks::Runner))
                    .col(timestamp_utc_null(ScheduledTasks::LastStartedAt))
                    .col(timestamp_utc_null(ScheduledTasks::LastFinishedAt))
                    .col(text_null(ScheduledTasks::LastOutcome))
                    .col(big_integer(ScheduledTasks::Runs).default(0))
                    .take(),
            )
            .await?;
        manager
            .create_table(
                Table::create()
                    .table(ToolCallArchive::Table)
                    .col(pk_uuid(ToolCallArchive::Id))
                    .col(json_binary(ToolCallArchive::ToolArgs))
                    .col(json_binary_null(ToolCallArchive::ToolResult))
                    .col(timestamp_utc(ToolCallArchive::ArchivedAt))
                    .foreign_key(&mut fk(
                        ToolCallArchive::Table,
                        ToolCallArchive::Id,
                        ToolCalls::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;
        add_column(
            manager,
            ToolCalls::Table,
            timestamp_utc_null(ToolCalls::ArchivedAt),
        )
        .await?;
        manager
            .create_index(index(Prompts::Table, [Prompts::CompletedAt]))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_prompts_completed_at")
                    .table(Prompts::Table)
                    .to_owned(),
            )
            .await?;
        drop_column(manager, ToolCalls::Table, ToolCalls::ArchivedAt).await?;
        drop_tables(
            manager,
            [
                ToolCallArchive::Table.into_iden(),
                ScheduledTasks::Table.into_iden(),
            ],
        )
        .await
    }
}
