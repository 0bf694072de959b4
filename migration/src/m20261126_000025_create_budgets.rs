//! `budgets` (issue #15 item 3): spend limits in money, set by admins, per user or per
//! group and per UTC day or month. A turn is admitted while every budget that applies
//! to it (its user's, and those of its tool's group and that group's ancestors) is
//! below its limit; the counters themselves live in the budget store
//! (`parley_runtime::budget`), seeded from `ai_usage` when they are missing.
//!
//! * `subject`: `user` or `group`; exactly one of `user_id` and `group_id` is set, the
//!   one the subject names (two columns rather than one polymorphic id, so that each
//!   has its foreign key and a deleted user or group takes its budgets with it);
//! * `period`: `day` or `month` (UTC calendar periods);
//! * `limit_micros`: the limit in millionths of the model prices' currency (US dollars),
//!   an integer so that sums stay exact.
//!
//! Indexes: unique (`user_id`, `period`) and (`group_id`, `period`) — one budget per
//! subject and period (NULLs are distinct on both backends, so the other subject's rows
//! do not clash) — which also serve the lookup of a turn's budgets.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{
    create_indexes, drop_tables, enum_string, fk, index, timestamp_utc, unique_index,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum Budgets {
    Table,
    Id,
    Subject,
    UserId,
    GroupId,
    Period,
    LimitMicros,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
}

#[derive(DeriveIden)]
enum Groups {
    Table,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        use Budgets as B;
        manager
            .create_table(
                Table::create()
                    .table(B::Table)
                    .col(pk_uuid(B::Id))
                    .col(enum_string(B::Subject))
                    .col(uuid_null(B::UserId))
                    .col(uuid_null(B::GroupId))
                    .col(enum_string(B::Period))
                    .col(big_integer(B::LimitMicros))
                    .col(timestamp_utc(B::CreatedAt))
                    .col(timestamp_utc(B::UpdatedAt))
                    .foreign_key(&mut fk(
                        B::Table,
                        B::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        B::Table,
                        B::GroupId,
                        Groups::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;
        create_indexes(
            manager,
            [
                unique_index(B::Table, [B::UserId, B::Period]),
                unique_index(B::Table, [B::GroupId, B::Period]),
                index(B::Table, [B::CreatedAt]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, [Budgets::Table]).await
    }
}
