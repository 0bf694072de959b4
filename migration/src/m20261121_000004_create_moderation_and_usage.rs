//! Moderation and accounting: redaction audit, module extractions, module hook events
//! (block metrics) and per-call LLM usage.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{create_indexes, drop_tables, enum_string, fk, index, timestamp_utc};
use crate::m20261121_000001_create_identity::Users;
use crate::m20261121_000002_create_tools_and_classes::Tools;
use crate::m20261121_000003_create_conversations::{Messages, Prompts, Sessions};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(MessageAudit::Table)
                    .col(pk_uuid(MessageAudit::Id))
                    .col(uuid(MessageAudit::MessageId))
                    .col(text(MessageAudit::OriginalContent))
                    .col(string(MessageAudit::RedactionModule))
                    .col(string(MessageAudit::RedactionReason))
                    .col(json_binary(MessageAudit::PatternsMatched))
                    .col(timestamp_utc(MessageAudit::CreatedAt))
                    .foreign_key(&mut fk(
                        MessageAudit::Table,
                        MessageAudit::MessageId,
                        Messages::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Extractions::Table)
                    .col(pk_uuid(Extractions::Id))
                    .col(uuid(Extractions::SessionId))
                    .col(uuid_null(Extractions::MessageId))
                    .col(string(Extractions::Module))
                    .col(string(Extractions::Type))
                    .col(json_binary(Extractions::Data))
                    .col(timestamp_utc(Extractions::CreatedAt))
                    .foreign_key(&mut fk(
                        Extractions::Table,
                        Extractions::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Extractions::Table,
                        Extractions::MessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ModuleEvents::Table)
                    .col(pk_uuid(ModuleEvents::Id))
                    .col(uuid_null(ModuleEvents::PromptId))
                    .col(string(ModuleEvents::Module))
                    .col(string(ModuleEvents::Hook))
                    .col(enum_string(ModuleEvents::Outcome))
                    .col(big_integer(ModuleEvents::DurationMs))
                    .col(timestamp_utc(ModuleEvents::CreatedAt))
                    .foreign_key(&mut fk(
                        ModuleEvents::Table,
                        ModuleEvents::PromptId,
                        Prompts::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(AiUsage::Table)
                    .col(pk_uuid(AiUsage::Id))
                    .col(uuid(AiUsage::PromptId))
                    .col(uuid_null(AiUsage::MessageId))
                    .col(uuid(AiUsage::SessionId))
                    .col(uuid(AiUsage::UserId))
                    .col(uuid(AiUsage::ToolId))
                    .col(string(AiUsage::Model))
                    .col(string(AiUsage::Vendor))
                    .col(big_integer(AiUsage::InputTokens))
                    .col(big_integer(AiUsage::OutputTokens))
                    .col(double(AiUsage::CostUsd))
                    .col(big_integer(AiUsage::LatencyMs))
                    .col(big_integer_null(AiUsage::TtftMs))
                    .col(timestamp_utc(AiUsage::CreatedAt))
                    .foreign_key(&mut fk(
                        AiUsage::Table,
                        AiUsage::PromptId,
                        Prompts::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        AiUsage::Table,
                        AiUsage::MessageId,
                        Messages::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .foreign_key(&mut fk(
                        AiUsage::Table,
                        AiUsage::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        AiUsage::Table,
                        AiUsage::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        AiUsage::Table,
                        AiUsage::ToolId,
                        Tools::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        create_indexes(
            manager,
            [
                index(MessageAudit::Table, [MessageAudit::MessageId]),
                index(Extractions::Table, [Extractions::SessionId]),
                index(Extractions::Table, [Extractions::MessageId]),
                index(ModuleEvents::Table, [ModuleEvents::PromptId]),
                // Block metrics: events per module over a time window.
                index(
                    ModuleEvents::Table,
                    [ModuleEvents::Module, ModuleEvents::CreatedAt],
                ),
                index(AiUsage::Table, [AiUsage::PromptId]),
                index(AiUsage::Table, [AiUsage::MessageId]),
                index(AiUsage::Table, [AiUsage::SessionId]),
                index(AiUsage::Table, [AiUsage::UserId]),
                index(AiUsage::Table, [AiUsage::ToolId]),
                // Usage by time (dashboard, billing windows).
                index(AiUsage::Table, [AiUsage::CreatedAt]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(
            manager,
            [
                AiUsage::Table.into_iden(),
                ModuleEvents::Table.into_iden(),
                Extractions::Table.into_iden(),
                MessageAudit::Table.into_iden(),
            ],
        )
        .await
    }
}

#[derive(DeriveIden)]
enum MessageAudit {
    Table,
    Id,
    MessageId,
    OriginalContent,
    RedactionModule,
    RedactionReason,
    PatternsMatched,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Extractions {
    Table,
    Id,
    SessionId,
    MessageId,
    Module,
    Type,
    Data,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ModuleEvents {
    Table,
    Id,
    PromptId,
    Module,
    Hook,
    Outcome,
    DurationMs,
    CreatedAt,
}

#[derive(DeriveIden)]
enum AiUsage {
    Table,
    Id,
    PromptId,
    MessageId,
    SessionId,
    UserId,
    ToolId,
    Model,
    Vendor,
    InputTokens,
    OutputTokens,
    CostUsd,
    LatencyMs,
    TtftMs,
    CreatedAt,
}
