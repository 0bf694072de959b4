//! `timers.paused_at`: the timer skill pauses and resumes timers (DESIGN §9). A paused
//! timer keeps `fires_at` as it was at the pause, so its remaining time is
//! `fires_at − paused_at`; resuming moves `fires_at` on by the time spent paused.

use sea_orm_migration::prelude::*;

use crate::common::{add_column, drop_column, timestamp_utc_null};

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
        add_column(manager, Timers::Table, timestamp_utc_null(Timers::PausedAt)).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, Timers::Table, Timers::PausedAt).await
    }
}
