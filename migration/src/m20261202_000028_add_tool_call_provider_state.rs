//! What a provider must see again of the response that made a function call (issue #45):
//! `tool_calls.provider_state`, JSON, null for calls recorded before it. It holds the
//! round the call belongs to (the `[[tool:N]]` number of the round's first call), the
//! text the model wrote before its calls, the response's reasoning state as its
//! provider kind needs it back (`reasoning_content`, Anthropic's signed thinking blocks)
//! and the call's own opaque fields (Gemini's thought signature). A retried,
//! taken-over or approval-resumed turn replays its finished calls from these rows, so
//! they send the provider what it requires on the next request of the turn.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden, Clone, Copy)]
enum ToolCalls {
    Table,
    ProviderState,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(
            manager,
            ToolCalls::Table,
            json_binary_null(ToolCalls::ProviderState),
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, ToolCalls::Table, ToolCalls::ProviderState).await
    }
}
