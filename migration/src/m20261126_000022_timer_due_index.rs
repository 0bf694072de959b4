//! An index on `timers.fires_at` for the timers still to fire (not fired, not
//! cancelled): the workers' timer pass asks for the next due time and the due timers
//! every second or so, and with it those reads touch only the pending timers, however
//! many have fired before (partial on both backends).

use sea_orm_migration::prelude::*;

use crate::common::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Timers {
    Table,
    FiresAt,
    FiredAt,
    CanceledAt,
}

const NAME: &str = "idx_timers_due";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                index(Timers::Table, [Timers::FiresAt])
                    .name(NAME)
                    .and_where(Expr::col(Timers::FiredAt).is_null())
                    .and_where(Expr::col(Timers::CanceledAt).is_null())
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name(NAME).table(Timers::Table).to_owned())
            .await
    }
}
