//! Function calls that wait for approval (issue #14): a call the model makes to a
//! function that needs the session's owner's approval is recorded `awaiting_approval`
//! and its turn suspended; the owner approves (optionally with edited input) or denies
//! it, or it expires and is denied. The decision is audited on the call's row:
//!
//! * `tool_calls.approval_expires_at`: when a waiting call is denied if no one decided;
//!   set when it starts to wait. The workers' expiry pass reads the waiting calls by it
//!   (`idx_tool_calls_awaiting_approval`, partial: only waiting calls).
//! * `tool_calls.decided_by`: who decided (a user's id); null for an expiry (and for a
//!   call that never waited).
//! * `tool_calls.decided_at`: when it was decided (approved, denied, expired, or
//!   cancelled with its turn).
//! * `tool_calls.decision_reason`: why it was denied (the user's words, or the expiry).
//! * `tool_calls.requested_args`: the arguments the model asked for, when the owner
//!   approved edited ones (`tool_args` holds what ran).

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column, index, timestamp_utc_null};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum ToolCalls {
    Table,
    State,
    ApprovalExpiresAt,
    DecidedBy,
    DecidedAt,
    DecisionReason,
    RequestedArgs,
}

const INDEX: &str = "idx_tool_calls_awaiting_approval";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for column in [ToolCalls::ApprovalExpiresAt, ToolCalls::DecidedAt] {
            add_column(manager, ToolCalls::Table, timestamp_utc_null(column)).await?;
        }
        add_column(manager, ToolCalls::Table, uuid_null(ToolCalls::DecidedBy)).await?;
        add_column(
            manager,
            ToolCalls::Table,
            text_null(ToolCalls::DecisionReason),
        )
        .await?;
        add_column(
            manager,
            ToolCalls::Table,
            json_binary_null(ToolCalls::RequestedArgs),
        )
        .await?;
        manager
            .create_index(
                index(ToolCalls::Table, [ToolCalls::ApprovalExpiresAt])
                    .name(INDEX)
                    .and_where(Expr::col(ToolCalls::State).eq("awaiting_approval"))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name(INDEX).table(ToolCalls::Table).to_owned())
            .await?;
        for column in [
            ToolCalls::RequestedArgs,
            ToolCalls::DecisionReason,
            ToolCalls::DecidedBy,
            ToolCalls::DecidedAt,
            ToolCalls::ApprovalExpiresAt,
        ] {
            drop_column(manager, ToolCalls::Table, column).await?;
        }
        Ok(())
    }
}
