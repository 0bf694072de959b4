//! `prompts.request_hash`: the SHA-256 of what a turn's request asked (its input and
//! model), kept for a request sent with an `Idempotency-Key`, so a key reused with a
//! different request is refused (422 `idempotency_key_reused`, the IETF
//! Idempotency-Key draft's rule) instead of silently answering with the first prompt.
//! Prompts recorded before it have none and replay as before.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Prompts {
    Table,
    RequestHash,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            Prompts::Table,
            string_len_null(Prompts::RequestHash, 64),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, Prompts::Table, Prompts::RequestHash).await
    }
}
