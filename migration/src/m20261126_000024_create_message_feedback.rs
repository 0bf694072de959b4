//! `message_feedback` (issue #14 item 3): what a user thought of an answer — thumbs up or
//! down, an optional comment and a few tags — one row per (message, user), changed in
//! place by its author (`updated_at`), gone with the message (a deleted session's
//! messages take their feedback with them: a comment is its author's words).
//!
//! * `rating`: `up` or `down`;
//! * `comment`: at most 2000 characters (the API's bound; `varchar(2000)` on PostgreSQL);
//!   null without one;
//! * `tags`: a JSON array of short strings (at most 10, each at most 32 characters:
//!   the API's bounds), `[]` without any;
//! * `session_id`: the message's session, kept beside it so the admin reports and the
//!   export find a session's feedback without going through its messages.
//!
//! Indexes: the unique (`message_id`, `user_id`) the upsert targets (it also serves the
//! foreign key on `message_id` and the chat page's read of the caller's feedback on the
//! messages it shows), `created_at` for the admin list's and the metrics' window,
//! (`rating`, `created_at`) for the rating filter, and the other foreign keys.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{
    create_indexes, drop_tables, enum_string, fk, index, timestamp_utc, unique_index,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum MessageFeedback {
    Table,
    Id,
    MessageId,
    SessionId,
    UserId,
    Rating,
    Comment,
    Tags,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Messages {
    Table,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
}

#[derive(DeriveIden)]
enum Users {
    Table,
}

/// The longest comment, in characters.
const COMMENT_MAX_CHARS: u32 = 2000;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use MessageFeedback as F;
        manager
            .create_table(
                Table::create()
                    .table(F::Table)
                    .col(pk_uuid(F::Id))
                    .col(uuid(F::MessageId))
                    .col(uuid(F::SessionId))
                    .col(uuid(F::UserId))
                    .col(enum_string(F::Rating))
                    .col(string_len_null(F::Comment, COMMENT_MAX_CHARS))
                    .col(json_binary(F::Tags))
                    .col(timestamp_utc(F::CreatedAt))
                    .col(timestamp_utc(F::UpdatedAt))
                    .foreign_key(&mut fk(
                        F::Table,
                        F::MessageId,
                        Messages::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        F::Table,
                        F::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        F::Table,
                        F::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;
        create_indexes(
            manager,
            [
                unique_index(F::Table, [F::MessageId, F::UserId]),
                index(F::Table, [F::SessionId]),
                index(F::Table, [F::UserId]),
                index(F::Table, [F::CreatedAt]),
                index(F::Table, [F::Rating, F::CreatedAt]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, [MessageFeedback::Table]).await
    }
}
