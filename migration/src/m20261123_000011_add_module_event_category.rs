//! `module_events.category`: why a module blocked (or modified) a message, as a short
//! category word the module gives with its block reason (`pii`, `self_harm`, `off_topic`,
//! …), so the admin block metrics can count blocks by category. Null for outcomes that
//! carry none.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

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
        add_column(
            manager,
            ModuleEvents::Table,
            string_len_null(ModuleEvents::Category, 64),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, ModuleEvents::Table, ModuleEvents::Category).await
    }
}
