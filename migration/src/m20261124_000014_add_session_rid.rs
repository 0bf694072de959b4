//! `sessions.rid`: the short request id that groups a `/v1/ask` conversation (seed
//! Gesahni), unique per user; null for sessions opened through `/v1/sessions`.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column, unique_index};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Sessions {
    Table,
    UserId,
    Rid,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, Sessions::Table, string_len_null(Sessions::Rid, 32)).await?;
        manager
            .create_index(unique_index(
                Sessions::Table,
                [Sessions::UserId, Sessions::Rid],
            ))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("uq_sessions_user_id_rid")
                    .table(Sessions::Table)
                    .to_owned(),
            )
            .await?;
        drop_column(manager, Sessions::Table, Sessions::Rid).await
    }
}
