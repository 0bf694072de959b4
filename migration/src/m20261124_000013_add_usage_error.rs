//! `ai_usage.error`: how a provider call failed (`unreachable`, `server_error`,
//! `rate_limited`, `refused`, `broken_stream`, `no_first_token`, `stalled`; null: it did
//! not), and an index on `(vendor, created_at)`, so that `GET /v1/admin/providers` can
//! give each provider's recent error rate and last error without reading every row.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column, index};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum AiUsage {
    Table,
    Error,
    Vendor,
    CreatedAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, AiUsage::Table, string_len_null(AiUsage::Error, 24)).await?;
        manager
            .create_index(index(AiUsage::Table, [AiUsage::Vendor, AiUsage::CreatedAt]))
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(
                Index::drop()
                    .name("idx_ai_usage_vendor_created_at")
                    .table(AiUsage::Table)
                    .to_owned(),
            )
            .await?;
        drop_column(manager, AiUsage::Table, AiUsage::Error).await
    }
}
