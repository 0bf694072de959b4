//! `module_events.category`: why a module blocked (or modified) a message, as a short
//! category word the module gives with its block reason (`pii`, `self_harm`, `off_topic`,
//! …), so the admin block metrics can count blocks by category. Null for outcomes that
//! carry none.

use sea_orm_migration::{prelude::*, schema::*};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum ModuleEvents {
    Table,
    Category,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ModuleEvents::Table)
                    .add_column(string_len_null(ModuleEvents::Category, 64))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(ModuleEvents::Table)
                    .drop_column(ModuleEvents::Category)
                    .take(),
            )
            .await
    }
}
