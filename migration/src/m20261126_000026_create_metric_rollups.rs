//! The admin metrics' rollups (issue #15 item 4): the usage and block views read whole
//! days from small tables a worker pass keeps current, instead of every row of the
//! window (docs/decisions.md, "Admin metrics at scale").
//!
//! * `ai_usage.rolled_up`, `module_events.rolled_up`: false when written (the turn's
//!   insert does not name it), set by the pass in the same transaction that adds the row
//!   to its day's rollup; the partial indexes on `created_at` over the rows not rolled
//!   up yet keep the pass's claim and the reads of the recent rows small.
//! * `usage_rollup`: one row per UTC day (`YYYY-MM-DD`) × model × user × tool: calls,
//!   tokens, cost, the calls that reported a time to first token, the largest latency
//!   and TTFT, and a histogram of each ([`LATENCY_BUCKETS`] columns `lat_00`… and
//!   `ttft_00`…, counts of calls at or under each bound) from which percentiles are read.
//! * `module_event_rollup`: one row per day × module × outcome × category (`uncategorized`
//!   for none): runs, the longest run and a histogram of durations ([`DURATION_BUCKETS`]
//!   columns `dur_00`…).
//! * `prompts` (`created_at`, `state`): the prompt statistics of a window count states
//!   from the index alone.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{create_indexes, drop_tables, index};

/// Histogram columns per latency measure (the bounds are in `parley_entity`).
pub const LATENCY_BUCKETS: usize = 16;
/// Histogram columns of the module runs' durations.
pub const DURATION_BUCKETS: usize = 12;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum AiUsage {
    Table,
    RolledUp,
    CreatedAt,
}

#[derive(DeriveIden, Clone, Copy)]
enum ModuleEvents {
    Table,
    RolledUp,
    CreatedAt,
}

#[derive(DeriveIden, Clone, Copy)]
enum Prompts {
    Table,
    CreatedAt,
    State,
}

#[derive(DeriveIden, Clone, Copy)]
enum UsageRollup {
    Table,
    Day,
    Model,
    UserId,
    ToolId,
    Calls,
    InputTokens,
    OutputTokens,
    CostUsd,
    TtftCalls,
    LatencyMax,
    TtftMax,
}

#[derive(DeriveIden, Clone, Copy)]
enum ModuleEventRollup {
    Table,
    Day,
    Module,
    Outcome,
    Category,
    Runs,
    DurationMax,
}

const UNROLLED_USAGE: &str = "idx_ai_usage_unrolled";
const UNROLLED_EVENTS: &str = "idx_module_events_unrolled";
const PROMPTS_WINDOW: &str = "idx_prompts_created_at_state";

/// `n` non-null counter columns `prefix00`, `prefix01`, … defaulting to 0.
fn buckets(prefix: &str, n: usize) -> Vec<ColumnDef> {
    (0..n)
        .map(|i| {
            big_integer(Alias::new(format!("{prefix}{i:02}")))
                .default(0)
                .take()
        })
        .collect()
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .alter_table(
                Table::alter()
                    .table(AiUsage::Table)
                    .add_column(boolean(AiUsage::RolledUp).default(false))
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ModuleEvents::Table)
                    .add_column(boolean(ModuleEvents::RolledUp).default(false))
                    .to_owned(),
            )
            .await?;
        let mut usage = Table::create();
        usage
            .table(UsageRollup::Table)
            .col(string_len(UsageRollup::Day, 10))
            .col(string_len(UsageRollup::Model, 200))
            .col(uuid(UsageRollup::UserId))
            .col(uuid(UsageRollup::ToolId))
            .col(big_integer(UsageRollup::Calls).default(0))
            .col(big_integer(UsageRollup::InputTokens).default(0))
            .col(big_integer(UsageRollup::OutputTokens).default(0))
            .col(double(UsageRollup::CostUsd).default(0.0))
            .col(big_integer(UsageRollup::TtftCalls).default(0))
            .col(big_integer(UsageRollup::LatencyMax).default(0))
            .col(big_integer(UsageRollup::TtftMax).default(0));
        for col in buckets("lat_", LATENCY_BUCKETS)
            .into_iter()
            .chain(buckets("ttft_", LATENCY_BUCKETS))
        {
            usage.col(col);
        }
        usage.primary_key(
            Index::create()
                .col(UsageRollup::Day)
                .col(UsageRollup::Model)
                .col(UsageRollup::UserId)
                .col(UsageRollup::ToolId),
        );
        manager.create_table(usage.to_owned()).await?;
        let mut events = Table::create();
        events
            .table(ModuleEventRollup::Table)
            .col(string_len(ModuleEventRollup::Day, 10))
            .col(string_len(ModuleEventRollup::Module, 200))
            .col(string_len(ModuleEventRollup::Outcome, 24))
            .col(string_len(ModuleEventRollup::Category, 200))
            .col(big_integer(ModuleEventRollup::Runs).default(0))
            .col(big_integer(ModuleEventRollup::DurationMax).default(0));
        for col in buckets("dur_", DURATION_BUCKETS) {
            events.col(col);
        }
        events.primary_key(
            Index::create()
                .col(ModuleEventRollup::Day)
                .col(ModuleEventRollup::Module)
                .col(ModuleEventRollup::Outcome)
                .col(ModuleEventRollup::Category),
        );
        manager.create_table(events.to_owned()).await?;
        create_indexes(
            manager,
            [
                index(AiUsage::Table, [AiUsage::CreatedAt])
                    .name(UNROLLED_USAGE)
                    .and_where(Expr::col(AiUsage::RolledUp).eq(false))
                    .take(),
                index(ModuleEvents::Table, [ModuleEvents::CreatedAt])
                    .name(UNROLLED_EVENTS)
                    .and_where(Expr::col(ModuleEvents::RolledUp).eq(false))
                    .take(),
                index(Prompts::Table, [Prompts::CreatedAt, Prompts::State])
                    .name(PROMPTS_WINDOW)
                    .take(),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for (name, table) in [
            (UNROLLED_USAGE, AiUsage::Table.into_iden()),
            (UNROLLED_EVENTS, ModuleEvents::Table.into_iden()),
            (PROMPTS_WINDOW, Prompts::Table.into_iden()),
        ] {
            manager
                .drop_index(Index::drop().name(name).table(table).to_owned())
                .await?;
        }
        drop_tables(
            manager,
            [
                UsageRollup::Table.into_iden(),
                ModuleEventRollup::Table.into_iden(),
            ],
        )
        .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(AiUsage::Table)
                    .drop_column(AiUsage::RolledUp)
                    .to_owned(),
            )
            .await?;
        manager
            .alter_table(
                Table::alter()
                    .table(ModuleEvents::Table)
                    .drop_column(ModuleEvents::RolledUp)
                    .to_owned(),
            )
            .await
    }
}
