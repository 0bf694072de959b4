//! Data behind the built-in functions and skills: todos, notes and timers. Each row is
//! owned by a user and may point at the session that created it.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{create_indexes, drop_tables, fk, index, timestamp_utc, timestamp_utc_null};
use crate::m20261121_000001_create_identity::Users;
use crate::m20261121_000003_create_conversations::Sessions;

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Todos::Table)
                    .col(pk_uuid(Todos::Id))
                    .col(uuid(Todos::UserId))
                    .col(uuid_null(Todos::SessionId))
                    .col(string(Todos::Title))
                    .col(text_null(Todos::Notes))
                    .col(timestamp_utc_null(Todos::DueAt))
                    .col(timestamp_utc_null(Todos::CompletedAt))
                    .col(timestamp_utc(Todos::CreatedAt))
                    .col(timestamp_utc(Todos::UpdatedAt))
                    .foreign_key(&mut fk(
                        Todos::Table,
                        Todos::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Todos::Table,
                        Todos::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Notes::Table)
                    .col(pk_uuid(Notes::Id))
                    .col(uuid(Notes::UserId))
                    .col(uuid_null(Notes::SessionId))
                    .col(string(Notes::Title))
                    .col(text(Notes::Content))
                    .col(timestamp_utc(Notes::CreatedAt))
                    .col(timestamp_utc(Notes::UpdatedAt))
                    .foreign_key(&mut fk(
                        Notes::Table,
                        Notes::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Notes::Table,
                        Notes::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Timers::Table)
                    .col(pk_uuid(Timers::Id))
                    .col(uuid(Timers::UserId))
                    .col(uuid_null(Timers::SessionId))
                    .col(string(Timers::Label))
                    .col(big_integer(Timers::DurationS))
                    .col(timestamp_utc(Timers::FiresAt))
                    .col(timestamp_utc_null(Timers::CanceledAt))
                    .col(timestamp_utc_null(Timers::FiredAt))
                    .col(timestamp_utc(Timers::CreatedAt))
                    .foreign_key(&mut fk(
                        Timers::Table,
                        Timers::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Timers::Table,
                        Timers::SessionId,
                        Sessions::Table,
                        ForeignKeyAction::SetNull,
                    ))
                    .take(),
            )
            .await?;

        create_indexes(
            manager,
            [
                index(Todos::Table, [Todos::UserId]),
                index(Todos::Table, [Todos::SessionId]),
                index(Notes::Table, [Notes::UserId]),
                index(Notes::Table, [Notes::SessionId]),
                index(Timers::Table, [Timers::UserId]),
                index(Timers::Table, [Timers::SessionId]),
                // Timers due to fire.
                index(Timers::Table, [Timers::FiresAt]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(
            manager,
            [
                Timers::Table.into_iden(),
                Notes::Table.into_iden(),
                Todos::Table.into_iden(),
            ],
        )
        .await
    }
}

#[derive(DeriveIden)]
enum Todos {
    Table,
    Id,
    UserId,
    SessionId,
    Title,
    Notes,
    DueAt,
    CompletedAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Notes {
    Table,
    Id,
    UserId,
    SessionId,
    Title,
    Content,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Timers {
    Table,
    Id,
    UserId,
    SessionId,
    Label,
    DurationS,
    FiresAt,
    CanceledAt,
    FiredAt,
    CreatedAt,
}
