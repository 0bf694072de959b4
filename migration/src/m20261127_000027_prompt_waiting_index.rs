//! An index on `prompts (session_id, id)` for the prompts waiting for their session
//! (state `created`): when a turn ends, its finish hands the session to the oldest
//! waiting prompt of that session, a subquery of the statement every turn ends with. The
//! indexes before it answered that by reading every prompt of the session (by
//! `(session_id, idempotency_key)`, which PostgreSQL chose on a young table) or every
//! waiting prompt of every session (by the partial unfinished-state index, once the
//! table was analysed), so the finish grew with the conversation or with the backlog.
//! With it the hand-over reads the session's waiting prompts, oldest first, and stops at
//! the first (partial on both backends: only waiting prompts are in it).

use sea_orm_migration::prelude::*;

use crate::common::index;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Prompts {
    Table,
    SessionId,
    Id,
    State,
}

const NAME: &str = "idx_prompts_session_waiting";

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_index(
                index(Prompts::Table, [Prompts::SessionId, Prompts::Id])
                    .name(NAME)
                    .and_where(Expr::col(Prompts::State).eq("created"))
                    .take(),
            )
            .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .drop_index(Index::drop().name(NAME).table(Prompts::Table).to_owned())
            .await
    }
}
