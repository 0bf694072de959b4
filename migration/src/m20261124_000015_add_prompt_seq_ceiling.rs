//! `prompts.seq_ceiling`: a bound on the `seq`s of the prompt's events (DESIGN §6), kept
//! in the database so the numbering survives the event log. Each attempt's claim raises
//! it by a block, the worker raises it again before its events pass it, and the finish
//! sets it to the terminal event's seq. An event log that is lost (an embedded restart,
//! a Redis without persistence) starts again above it, and a feed rebuilt after the
//! log's retention numbers its events after it, so a reader's `Last-Event-ID` always
//! says what it holds.
//!
//! Prompts recorded before it got a ceiling of one block: their logs numbered from 1 and
//! never reached it, so a rebuilt feed after their retention is numbered above every seq
//! a reader of theirs holds.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Prompts {
    Table,
    SeqCeiling,
}

/// `parley_entity::query::prompts::SEQ_BLOCK` when this migration was written.
const BLOCK: i64 = 1 << 20;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            Prompts::Table,
            big_integer(Prompts::SeqCeiling).default(0).to_owned(),
        )
        .await?;
        manager
            .exec_stmt(
                Query::update()
                    .table(Prompts::Table)
                    .value(Prompts::SeqCeiling, BLOCK)
                    .to_owned(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, Prompts::Table, Prompts::SeqCeiling).await
    }
}
