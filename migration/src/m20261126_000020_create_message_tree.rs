//! The message tree (DESIGN §13, issue #14): `messages.parent_id` names the message a
//! message answers or follows (none for a session's first message), and
//! `sessions.active_leaf_id` the last message of the branch the session shows and
//! continues. Editing a message adds a sibling (same parent); regenerating an answer adds
//! another child of the same user message. Sibling order is creation order (`seq`).
//!
//! No foreign key: SQLite cannot add one to an existing table, and both columns are kept
//! by the application in the statements that write messages (a session's rows go with
//! the session). The index serves "the children of a message" and "the first messages of
//! a session" (`parent_id IS NULL`).
//!
//! Rows written before are one line per session: each message's parent is the message
//! before it (`seq` is gap-free per session) and the active leaf is the last one.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Messages {
    Table,
    SessionId,
    ParentId,
}

#[derive(DeriveIden)]
enum Sessions {
    Table,
    ActiveLeafId,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, Messages::Table, uuid_null(Messages::ParentId)).await?;
        add_column(manager, Sessions::Table, uuid_null(Sessions::ActiveLeafId)).await?;
        manager
            .create_index(index(
                Messages::Table,
                [Messages::SessionId, Messages::ParentId],
            ))
            .await?;
        let db = manager.get_connection();
        db.execute_unprepared(
            "UPDATE messages SET parent_id = (SELECT earlier.id FROM messages AS earlier \
             WHERE earlier.session_id = messages.session_id AND earlier.seq = messages.seq - 1)",
        )
        .await?;
        db.execute_unprepared(
            "UPDATE sessions SET active_leaf_id = (SELECT m.id FROM messages AS m \
             WHERE m.session_id = sessions.id ORDER BY m.seq DESC LIMIT 1)",
        )
        .await?;
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_messages_session_id_parent_id")
                    .table(Messages::Table)
                    .to_owned(),
            )
            .await?;
        drop_column(manager, Sessions::Table, Sessions::ActiveLeafId).await?;
        drop_column(manager, Messages::Table, Messages::ParentId).await
    }
}
