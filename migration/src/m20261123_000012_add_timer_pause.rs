//! `timers.paused_at`: the timer skill pauses and resumes timers (DESIGN §9). A paused
//! timer keeps `fires_at` as it was at the pause, so its remaining time is
//! `fires_at − paused_at`; resuming moves `fires_at` on by the time spent paused.

use sea_orm_migration::prelude::*;

use crate::common::timestamp_utc_null;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Timers {
    Table,
    PausedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Timers::Table)
                    .add_column(timestamp_utc_null(Timers::PausedAt))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(Timers::Table)
                    .drop_column(Timers::PausedAt)
                    .take(),
            )
            .await
    }
}
