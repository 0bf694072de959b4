//! Calls of the caller's own functions (issue #46 items 1–2): a call the model makes to a
//! function the turn's client runs is recorded `awaiting_client` and its turn suspended
//! until the client posts the result, or until `tool_calls.approval_expires_at` (the
//! wait's end, for both kinds of waiting call) fails it. The workers' expiry pass reads
//! those calls by it: `idx_tool_calls_awaiting_client`, partial like
//! `idx_tool_calls_awaiting_approval` beside it (only waiting calls).

use sea_orm_migration::prelude::*;

use crate::common::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum ToolCalls {
    Table,
    State,
    ApprovalExpiresAt,
}

const INDEX: &str = "idx_tool_calls_awaiting_client";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                index(ToolCalls::Table, [ToolCalls::ApprovalExpiresAt])
                    .name(INDEX)
                    .and_where(Expr::col(ToolCalls::State).eq("awaiting_client"))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name(INDEX).table(ToolCalls::Table).to_owned())
            .await
    }
}
