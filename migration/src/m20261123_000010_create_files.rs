//! `files`: what users upload to attach to their messages (`POST /v1/files`). A file is
//! its owner's; its bytes live in the row (uploads are bounded by configuration, and
//! every worker must read them: a shared database is the one store both modes have),
//! with the type found from its content, its size, and the text extracted from it (text
//! and PDF files) that goes into the model's context.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{create_indexes, drop_tables, fk, index, timestamp_utc};
use crate::m20261121_000001_create_identity::Users;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
pub enum Files {
    Table,
    Id,
    UserId,
    Name,
    ContentType,
    Size,
    Kind,
    Text,
    Data,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Files::Table)
                    .col(pk_uuid(Files::Id))
                    .col(uuid(Files::UserId))
                    .col(string(Files::Name))
                    .col(string(Files::ContentType))
                    .col(big_integer(Files::Size))
                    .col(string_len(Files::Kind, 24))
                    .col(text_null(Files::Text))
                    .col(blob(Files::Data))
                    .col(timestamp_utc(Files::CreatedAt))
                    .foreign_key(&mut fk(
                        Files::Table,
                        Files::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;
        create_indexes(manager, [index(Files::Table, [Files::UserId])]).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, [Files::Table]).await
    }
}
