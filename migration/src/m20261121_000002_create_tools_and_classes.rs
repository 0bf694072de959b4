//! Tools (configured assistants) and the classroom layer: classes, enrollments,
//! assignments and submissions.

use sea_orm_migration::{prelude::*, schema::*};

use crate::common::{
    create_indexes, drop_tables, enum_string, fk, index, timestamp_utc, timestamp_utc_null,
    unique_index,
};
use crate::m20261121_000001_create_identity::{Groups, Users};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Tools::Table)
                    .col(pk_uuid(Tools::Id))
                    .col(uuid(Tools::GroupId))
                    .col(string(Tools::Name))
                    .col(string(Tools::Type))
                    .col(json_binary(Tools::Definition))
                    .col(timestamp_utc(Tools::CreatedAt))
                    .col(timestamp_utc(Tools::UpdatedAt))
                    .foreign_key(&mut fk(
                        Tools::Table,
                        Tools::GroupId,
                        Groups::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Classes::Table)
                    .col(pk_uuid(Classes::Id))
                    .col(uuid(Classes::GroupId))
                    .col(string(Classes::Name))
                    .col(timestamp_utc(Classes::CreatedAt))
                    .col(timestamp_utc(Classes::UpdatedAt))
                    .foreign_key(&mut fk(
                        Classes::Table,
                        Classes::GroupId,
                        Groups::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Enrollments::Table)
                    .col(pk_uuid(Enrollments::Id))
                    .col(uuid(Enrollments::ClassId))
                    .col(uuid(Enrollments::UserId))
                    .col(enum_string(Enrollments::Role))
                    .col(timestamp_utc(Enrollments::CreatedAt))
                    .foreign_key(&mut fk(
                        Enrollments::Table,
                        Enrollments::ClassId,
                        Classes::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Enrollments::Table,
                        Enrollments::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Assignments::Table)
                    .col(pk_uuid(Assignments::Id))
                    .col(uuid(Assignments::ClassId))
                    .col(uuid(Assignments::ToolId))
                    .col(string(Assignments::Title))
                    .col(text(Assignments::Instructions))
                    .col(json_binary(Assignments::Config))
                    .col(timestamp_utc_null(Assignments::AvailableAt))
                    .col(timestamp_utc_null(Assignments::ClosesAt))
                    .col(timestamp_utc(Assignments::CreatedAt))
                    .col(timestamp_utc(Assignments::UpdatedAt))
                    .foreign_key(&mut fk(
                        Assignments::Table,
                        Assignments::ClassId,
                        Classes::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Assignments::Table,
                        Assignments::ToolId,
                        Tools::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Submissions::Table)
                    .col(pk_uuid(Submissions::Id))
                    .col(uuid(Submissions::AssignmentId))
                    .col(uuid(Submissions::UserId))
                    .col(enum_string(Submissions::State))
                    .col(timestamp_utc_null(Submissions::SubmittedAt))
                    .col(timestamp_utc(Submissions::CreatedAt))
                    .col(timestamp_utc(Submissions::UpdatedAt))
                    .foreign_key(&mut fk(
                        Submissions::Table,
                        Submissions::AssignmentId,
                        Assignments::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        Submissions::Table,
                        Submissions::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        create_indexes(
            manager,
            [
                index(Tools::Table, [Tools::GroupId]),
                index(Classes::Table, [Classes::GroupId]),
                // Also serves lookups by class_id.
                unique_index(
                    Enrollments::Table,
                    [Enrollments::ClassId, Enrollments::UserId],
                ),
                index(Enrollments::Table, [Enrollments::UserId]),
                index(Assignments::Table, [Assignments::ClassId]),
                index(Assignments::Table, [Assignments::ToolId]),
                index(Submissions::Table, [Submissions::AssignmentId]),
                index(Submissions::Table, [Submissions::UserId]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        drop_tables(
            manager,
            [
                Submissions::Table.into_iden(),
                Assignments::Table.into_iden(),
                Enrollments::Table.into_iden(),
                Classes::Table.into_iden(),
                Tools::Table.into_iden(),
            ],
        )
        .await
    }
}

#[derive(DeriveIden)]
pub enum Tools {
    Table,
    Id,
    GroupId,
    Name,
    Type,
    Definition,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Classes {
    Table,
    Id,
    GroupId,
    Name,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum Enrollments {
    Table,
    Id,
    ClassId,
    UserId,
    Role,
    CreatedAt,
}

#[derive(DeriveIden)]
pub enum Assignments {
    Table,
    Id,
    ClassId,
    ToolId,
    Title,
    Instructions,
    Config,
    AvailableAt,
    ClosesAt,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
pub enum Submissions {
    Table,
    Id,
    AssignmentId,
    UserId,
    State,
    SubmittedAt,
    CreatedAt,
    UpdatedAt,
}
