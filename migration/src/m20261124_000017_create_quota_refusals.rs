//! `quota_refusals`: one row per turn a quota refused (issue #11) — who, on which tool
//! and group, with which model, by which limit and when — so the admin usage report
//! shows refusals beside the calls (by day, model, user or tool). Refusals are rare
//! next to calls; the index on `created_at` serves the report's window.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{drop_tables, fk, index, timestamp_utc};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
pub enum QuotaRefusals {
    Table,
    Id,
    UserId,
    ToolId,
    GroupId,
    Model,
    LimitKind,
    CreatedAt,
}

#[derive(DeriveIden)]
enum Users {
    Table,
}

#[derive(DeriveIden)]
enum Tools {
    Table,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(QuotaRefusals::Table)
                    .col(pk_uuid(QuotaRefusals::Id))
                    .col(uuid(QuotaRefusals::UserId))
                    .col(uuid(QuotaRefusals::ToolId))
                    .col(uuid(QuotaRefusals::GroupId))
                    .col(string_len(QuotaRefusals::Model, 128))
                    .col(string_len(QuotaRefusals::LimitKind, 32))
                    .col(timestamp_utc(QuotaRefusals::CreatedAt))
                    .foreign_key(&mut fk(
                        QuotaRefusals::Table,
                        QuotaRefusals::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        QuotaRefusals::Table,
                        QuotaRefusals::ToolId,
                        Tools::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;
        manager
            .create_index(index(QuotaRefusals::Table, [QuotaRefusals::CreatedAt]))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(manager, [QuotaRefusals::Table]).await
    }
}
