//! `users.disabled_at`: a disabled user authenticates nobody (their tokens stop working
//! and their open feeds close within seconds, like a revoked token's), and is kept with
//! their records. An index on `api_tokens.revoked_at` and one on `users.disabled_at`
//! serve the api processes' poll for what was revoked or disabled lately.
//!
//! `sessions.rid` widens from 32 to 64 characters: an OpenAI-compatible client's
//! conversation key (`Parley-Conversation`) is often a UUID. SQLite does not bound
//! `varchar` lengths, so only PostgreSQL's column changes.

use sea_orm_migration::{prelude::*, sea_orm::DatabaseBackend};

use crate::common::{add_column, drop_column, index, timestamp_utc_null};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Users {
    Table,
    DisabledAt,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    RevokedAt,
}

async fn set_rid_length(manager: &SchemaManager<'_>, length: u32) -> Result<(), DbErr> {
    if manager.get_database_backend() != DatabaseBackend::Postgres {
        return Ok(());
    }
    // Narrowing (down) cuts longer keys; they could not have been stored before.
    let sql = format!(
        "ALTER TABLE sessions ALTER COLUMN rid TYPE varchar({length}) USING left(rid, {length})"
    );
    manager.get_connection().execute_unprepared(&sql).await?;
    Ok(())
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, Users::Table, timestamp_utc_null(Users::DisabledAt)).await?;
        manager
            .create_index(index(Users::Table, [Users::DisabledAt]))
            .await?;
        manager
            .create_index(index(ApiTokens::Table, [ApiTokens::RevokedAt]))
            .await?;
        set_rid_length(manager, 64).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        set_rid_length(manager, 32).await?;
        for (name, table) in [
            ("idx_api_tokens_revoked_at", ApiTokens::Table.into_iden()),
            ("idx_users_disabled_at", Users::Table.into_iden()),
        ] {
            manager
                .drop_index(Index::drop().name(name).table(table).to_owned())
                .await?;
        }
        drop_column(manager, Users::Table, Users::DisabledAt).await
    }
}
