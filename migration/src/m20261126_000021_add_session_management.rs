//! Sessions people manage (issue #14): a title, pinning, archiving and deletion.
//!
//! * `sessions.title`: what the session is called, at most 200 characters; null until
//!   the first exchange finishes (or the owner names it).
//! * `sessions.title_source`: who wrote the title — `words` (the first words of the first
//!   user message, written by the turn that finished the first exchange), `model` (the
//!   configured title model, in the background) or `user` (the owner, who always wins:
//!   the generator only ever replaces a `words` title). Null exactly when the title is.
//! * `sessions.pinned_at`, `sessions.archived_at`: when the owner pinned or archived it;
//!   null when they did not.
//! * `sessions.deleted_at`: when the owner deleted it. A deleted session's content is
//!   gone (messages, blocks, tool calls, extractions and the prompts' text); the row stays
//!   as a tombstone so the usage ledger (`ai_usage`, whose foreign keys cascade from
//!   sessions and prompts) keeps its rows. Nothing reads a deleted session but the ledger.
//!
//! No new index: a user's list still starts from `idx_sessions_user_id_state_last_activity_at`
//! (a user's sessions are few enough to sort pinned ones first after it narrows them).

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column, timestamp_utc_null};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum Sessions {
    Table,
    Title,
    TitleSource,
    PinnedAt,
    ArchivedAt,
    DeletedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        add_column(manager, Sessions::Table, text_null(Sessions::Title)).await?;
        add_column(
            manager,
            Sessions::Table,
            string_len_null(Sessions::TitleSource, 24),
        )
        .await?;
        for column in [
            Sessions::PinnedAt,
            Sessions::ArchivedAt,
            Sessions::DeletedAt,
        ] {
            add_column(manager, Sessions::Table, timestamp_utc_null(column)).await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            Sessions::DeletedAt,
            Sessions::ArchivedAt,
            Sessions::PinnedAt,
            Sessions::TitleSource,
            Sessions::Title,
        ] {
            drop_column(manager, Sessions::Table, column).await?;
        }
        Ok(())
    }
}
