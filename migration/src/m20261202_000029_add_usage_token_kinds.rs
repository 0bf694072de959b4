//! Usage by token kind (issue #45, DESIGN §14): beside `input_tokens` and
//! `output_tokens` (every input and every output token, as before), each LLM call's
//! `ai_usage` row and each day's `usage_rollup` row count the parts of them that cost
//! differently — `cached_input_tokens` (read from the provider's prompt cache),
//! `cache_write_tokens` (written to it) and `reasoning_tokens` (output the model spent
//! thinking). All `BIGINT NOT NULL DEFAULT 0`: a row of before read nothing of them,
//! which is what its provider was asked.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AiUsage {
    Table,
}

#[derive(DeriveIden, Clone, Copy)]
enum UsageRollup {
    Table,
}

#[derive(DeriveIden, Clone, Copy)]
#[allow(
    clippy::enum_variant_names,
    reason = "the columns are named for their kind of token, as input_tokens is"
)]
enum Kind {
    CachedInputTokens,
    CacheWriteTokens,
    ReasoningTokens,
}

const KINDS: [Kind; 3] = [
    Kind::CachedInputTokens,
    Kind::CacheWriteTokens,
    Kind::ReasoningTokens,
];

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // One column per statement: SQLite's ALTER TABLE adds one at a time.
        for kind in KINDS {
            add_column(manager, AiUsage::Table, big_integer(kind).default(0).take()).await?;
            add_column(
                manager,
                UsageRollup::Table,
                big_integer(kind).default(0).take(),
            )
            .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for kind in KINDS.into_iter().rev() {
            drop_column(manager, UsageRollup::Table, kind).await?;
            drop_column(manager, AiUsage::Table, kind).await?;
        }
        Ok(())
    }
}
