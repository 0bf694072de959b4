//! `session_summaries` (issue #45 item 5): where a long conversation's history window
//! starts, and the summary of what fell out of it. One row per session, written only when
//! the window steps (a conversation that fits its model's window has none):
//!
//! * `through_message_id`: the newest message the window left out (the history after it,
//!   on the session's active branch, is sent); a branch that does not contain it reads
//!   as having no row;
//! * `summary`: what the left-out messages said, written by a model call (the tool's
//!   `history.compaction = "summarize"`); null when the tool does not summarize or the
//!   call failed;
//! * `model`: the model that wrote it; `steps`: how many times the window stepped.
//!
//! Gone with its session (the summary is the session's content, never another user's).

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{drop_tables, fk, timestamp_utc};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum SessionSummaries {
    Table,
    SessionId,
    ThroughMessageId,
    Summary,
    Model,
    Steps,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use SessionSummaries as S;
        manager
            .create_table(
                Table::create()
                    .table(S::Table)
                    .col(pk_uuid(S::SessionId))
                    .col(uuid(S::ThroughMessageId))
                    .col(text_null(S::Summary))
                    .col(string_len_null(S::Model, 200))
                    .col(integer(S::Steps).default(0))
                    .col(timestamp_utc(S::CreatedAt))
                    .col(timestamp_utc(S::UpdatedAt))
                    .foreign_key(&mut fk(
                        S::Table,
                        S::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, [SessionSummaries::Table]).await
    }
}
