//! `prompts.response`: what a finished answer carries besides its text and its function
//! calls — the payload and the suggestions taken out of the model's text (or the last
//! function payload) — so that a `complete` rebuilt after the event log's retention
//! carries them as the live one did, and `POST /v1/sessions/{id}/actions` can check
//! that an action was offered.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{add_column, drop_column};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[derive(DeriveIden)]
enum Prompts {
    Table,
    Response,
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        add_column(manager, Prompts::Table, json_binary_null(Prompts::Response)).await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_column(manager, Prompts::Table, Prompts::Response).await
    }
}
