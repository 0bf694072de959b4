//! The streaming path's additions to `prompts`:
//!
//! * `input` — what the user sent ({content, attachments}): the api records it with the
//!   prompt, and the worker saves it as the user message only after `chat:before_ai`
//!   (DESIGN §5.4–5), so the turn's input must live on the prompt until then;
//! * `lease_owner`, `lease_expires_at` — the worker that owns an `in_progress` prompt and
//!   until when. A worker renews its lease while it runs; a job redelivered after its
//!   worker died may claim the prompt once the lease has lapsed (DESIGN §10), and never
//!   while it is held, so two live workers cannot both own a prompt.
//!
//! One column per statement: SQLite alters one column at a time.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::timestamp_utc_null;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Prompts {
    Table,
    Input,
    LeaseOwner,
    LeaseExpiresAt,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [
            json_binary_null(Prompts::Input),
            string_null(Prompts::LeaseOwner),
            timestamp_utc_null(Prompts::LeaseExpiresAt),
        ] {
            let mut column = column;
            manager
                .alter_table(
                    Table::alter()
                        .table(Prompts::Table)
                        .add_column(&mut column)
                        .take(),
                )
                .await?;
        }
        Ok(())
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        for column in [Prompts::LeaseExpiresAt, Prompts::LeaseOwner, Prompts::Input] {
            manager
                .alter_table(
                    Table::alter()
                        .table(Prompts::Table)
                        .drop_column(column)
                        .take(),
                )
                .await?;
        }
        Ok(())
    }
}
