//! Conversations: sessions, their messages, prompts (generations), the blocks a prompt
//! streams, and the tool calls it makes.
//!
//! `sessions.active_prompt_id` and `messages.prompt_id` carry no foreign key: `prompts`
//! already references both tables, and the cycle would make inserts and drops order-bound.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{
    create_indexes, drop_tables, enum_string, fk, index, timestamp_utc, timestamp_utc_null,
    unique_index,
};
use crate::m20261121_000001_create_identity::Users;
use crate::m20261121_000002_create_tools_and_classes::{Assignments, Submissions, Tools};

/// Prompt states a worker may still act on (DESIGN.md §4); the partial index covers these.
const UNFINISHED_PROMPT_STATES: [&str; 3] = ["created", "in_progress", "waiting_for_tools"];

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Sessions::Table)
                    .col(pk_uuid(Sessions::Id))
                    .col(uuid(Sessions::UserId))
                    .col(uuid(Sessions::ToolId))
                    .col(uuid_null(Sessions::AssignmentId))
                    .col(uuid_null(Sessions::SubmissionId))
                    .col(enum_string(Sessions::State))
                    .col(timestamp_utc(Sessions::StartedAt))
                    .col(timestamp_utc_null(Sessions::EndedAt))
                    .col(timestamp_utc(Sessions::LastActivityAt))
                    .col(integer(Sessions::MessageCount))
                    .col(json_binary(Sessions::Config))
                    .col(uuid_null(Sessions::ActivePromptId))
                    .col(string_null(Sessions::EndReason))
                    .foreign_key(&mut fk(
                        Sessions::Table,
                        Sessions::UserId,
                        Users::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .foreign_key(&mut fk(
                        Sessions::Table,
                        Sessions::ToolId,
                        Tools::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .foreign_key(&mut fk(
                        Sessions::Table,
                        Sessions::AssignmentId,
                        Assignments::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        Sessions::Table,
                        Sessions::SubmissionId,
                        Submissions::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Messages::Table)
                    .col(pk_uuid(Messages::Id))
                    .col(uuid(Messages::SessionId))
                    .col(integer(Messages::Seq))
                    .col(enum_string(Messages::Role))
                    .col(text(Messages::Content))
                    .col(boolean(Messages::IsComplete))
                    .col(uuid_null(Messages::PromptId))
                    .col(timestamp_utc(Messages::CreatedAt))
                    .foreign_key(&mut fk(
                        Messages::Table,
                        Messages::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Prompts::Table)
                    .col(pk_uuid(Prompts::Id))
                    .col(uuid(Prompts::SessionId))
                    .col(uuid_null(Prompts::UserMessageId))
                    .col(uuid_null(Prompts::AssistantMessageId))
                    .col(enum_string(Prompts::State))
                    .col(integer(Prompts::Attempt))
                    .col(string_null(Prompts::Model))
                    .col(string_null(Prompts::Vendor))
                    .col(json_binary_null(Prompts::Route))
                    .col(text_null(Prompts::SystemMessage))
                    .col(string_null(Prompts::ErrorCode))
                    .col(text_null(Prompts::Error))
                    .col(string_null(Prompts::IdempotencyKey))
                    .col(timestamp_utc_null(Prompts::CancelRequestedAt))
                    .col(timestamp_utc(Prompts::CreatedAt))
                    .col(timestamp_utc_null(Prompts::StartedAt))
                    .col(timestamp_utc_null(Prompts::CompletedAt))
                    .foreign_key(&mut fk(
                        Prompts::Table,
                        Prompts::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Prompts::Table,
                        Prompts::UserMessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        Prompts::Table,
                        Prompts::AssistantMessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Blocks::Table)
                    .col(pk_uuid(Blocks::Id))
                    .col(uuid_null(Blocks::MessageId))
                    .col(uuid(Blocks::PromptId))
                    .col(integer(Blocks::Index))
                    .col(enum_string(Blocks::Type))
                    .col(text(Blocks::Content))
                    .col(json_binary(Blocks::Metadata))
                    .col(boolean(Blocks::IsFinalized))
                    .col(timestamp_utc(Blocks::CreatedAt))
                    .col(timestamp_utc(Blocks::UpdatedAt))
                    .foreign_key(&mut fk(
                        Blocks::Table,
                        Blocks::MessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        Blocks::Table,
                        Blocks::PromptId,
                        Prompts::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ToolCalls::Table)
                    .col(pk_uuid(ToolCalls::Id))
                    .col(uuid(ToolCalls::SessionId))
                    .col(uuid(ToolCalls::PromptId))
                    .col(uuid_null(ToolCalls::BlockId))
                    .col(uuid_null(ToolCalls::MessageId))
                    .col(string(ToolCalls::ApiToolCallId))
                    .col(string(ToolCalls::ToolName))
                    .col(json_binary(ToolCalls::ToolArgs))
                    .col(json_binary_null(ToolCalls::ToolResult))
                    .col(enum_string(ToolCalls::State))
                    .col(text_null(ToolCalls::ErrorMessage))
                    .col(timestamp_utc_null(ToolCalls::StartedAt))
                    .col(timestamp_utc_null(ToolCalls::CompletedAt))
                    .col(big_integer_null(ToolCalls::DurationMs))
                    .col(timestamp_utc(ToolCalls::CreatedAt))
                    .foreign_key(&mut fk(
                        ToolCalls::Table,
                        ToolCalls::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        ToolCalls::Table,
                        ToolCalls::PromptId,
                        Prompts::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        ToolCalls::Table,
                        ToolCalls::BlockId,
                        Blocks::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        ToolCalls::Table,
                        ToolCalls::MessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        create_indexes(
            manager,
            [
                // A user's sessions by state, most recent first; also covers user_id.
                index(
                    Sessions::Table,
                    [Sessions::UserId, Sessions::State, Sessions::LastActivityAt],
                ),
                index(Sessions::Table, [Sessions::ToolId]),
                index(Sessions::Table, [Sessions::AssignmentId]),
                index(Sessions::Table, [Sessions::SubmissionId]),
                // The transcript in order; also covers session_id.
                unique_index(Messages::Table, [Messages::SessionId, Messages::Seq]),
                // The active prompt of a session; also covers session_id.
                index(Prompts::Table, [Prompts::SessionId, Prompts::State]),
                unique_index(
                    Prompts::Table,
                    [Prompts::SessionId, Prompts::IdempotencyKey],
                ),
                index(Prompts::Table, [Prompts::UserMessageId]),
                index(Prompts::Table, [Prompts::AssistantMessageId]),
                // Work still in flight (sweepers, queue depth); partial on both backends.
                index(Prompts::Table, [Prompts::State])
                    .name("idx_prompts_state_unfinished")
                    .and_where(Expr::col(Prompts::State).is_in(UNFINISHED_PROMPT_STATES))
                    .take(),
                index(Blocks::Table, [Blocks::MessageId]),
                unique_index(Blocks::Table, [Blocks::PromptId, Blocks::Index]),
                index(ToolCalls::Table, [ToolCalls::SessionId]),
                unique_index(
                    ToolCalls::Table,
                    [ToolCalls::PromptId, ToolCalls::ApiToolCallId],
                ),
                index(ToolCalls::Table, [ToolCalls::BlockId]),
                index(ToolCalls::Table, [ToolCalls::MessageId]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(
            manager,
            [
                ToolCalls::Table.into_iden(),
                Blocks::Table.into_iden(),
                Prompts::Table.into_iden(),
                Messages::Table.into_iden(),
                Sessions::Table.into_iden(),
            ],
        )
        .await
    }
}

#[derive(DeriveIden)]
pub enum Sessions {
    Table,
    Id,
    UserId,
    ToolId,
    AssignmentId,
    SubmissionId,
    State,
    StartedAt,
    EndedAt,
    LastActivityAt,
    MessageCount,
    Config,
    ActivePromptId,
    EndReason,
}

#[derive(DeriveIden)]
pub enum Messages {
    Table,
    Id,
    SessionId,
    Seq,
    Role,
    Content,
    IsComplete,
    PromptId,
    CreatedAt,
}

#[derive(DeriveIden)]
pub enum Prompts {
    Table,
    Id,
    SessionId,
    UserMessageId,
    AssistantMessageId,
    State,
    Attempt,
    Model,
    Vendor,
    Route,
    SystemMessage,
    ErrorCode,
    Error,
    IdempotencyKey,
    CancelRequestedAt,
    CreatedAt,
    StartedAt,
    CompletedAt,
}

#[derive(DeriveIden)]
enum Blocks {
    Table,
    Id,
    MessageId,
    PromptId,
    Index,
    Type,
    Content,
    Metadata,
    IsFinalized,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum ToolCalls {
    Table,
    Id,
    SessionId,
    PromptId,
    BlockId,
    MessageId,
    ApiToolCallId,
    ToolName,
    ToolArgs,
    ToolResult,
    State,
    ErrorMessage,
    StartedAt,
    CompletedAt,
    DurationMs,
    CreatedAt,
}
