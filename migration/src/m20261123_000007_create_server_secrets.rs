//! `server_secrets`: keys every process of a deployment must share, created once by
//! whichever process needs one first (an insert that loses the race reads the winner's).
//! Today: the HMAC key of feed tokens (`feed_token_key`), so a token minted by one api
//! process opens the feed on any other.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::timestamp_utc;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ServerSecrets {
    Table,
    Name,
    Value,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(ServerSecrets::Table)
                    .col(string_len(ServerSecrets::Name, 64).primary_key())
                    .col(text(ServerSecrets::Value))
                    .col(timestamp_utc(ServerSecrets::CreatedAt))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_table(Table::drop().table(ServerSecrets::Table).take())
            .await
    }
}
