//! Identity: the group tree, users, group membership and API tokens.

use sea_orm_migration::{prelude::*, schema::*, sea_orm::DbBackend};

use crate::common::{
    create_indexes, drop_tables, enum_string, fk, index, timestamp_utc, timestamp_utc_null,
    unique_index,
};

#[derive(DeriveMigrationName)]
pub struct Migration;

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        manager
            .create_table(
                Table::create()
                    .table(Groups::Table)
                    .col(pk_uuid(Groups::Id))
                    .col(uuid_null(Groups::ParentId))
                    .col(string(Groups::Name))
                    .col(string(Groups::Path))
                    .col(json_binary(Groups::Settings))
                    .col(timestamp_utc(Groups::CreatedAt))
                    .col(timestamp_utc(Groups::UpdatedAt))
                    .foreign_key(&mut fk(
                        Groups::Table,
                        Groups::ParentId,
                        Groups::Table,
                        ForeignKeyAction::Restrict,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(Users::Table)
                    .col(pk_uuid(Users::Id))
                    .col(string(Users::Email))
                    .col(string(Users::Name))
                    .col(enum_string(Users::Role))
                    .col(json_binary(Users::Permissions))
                    .col(timestamp_utc(Users::CreatedAt))
                    .col(timestamp_utc(Users::UpdatedAt))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(GroupMembers::Table)
                    .col(uuid(GroupMembers::GroupId))
                    .col(uuid(GroupMembers::UserId))
                    .col(enum_string(GroupMembers::Role))
                    .col(timestamp_utc(GroupMembers::CreatedAt))
                    .primary_key(
                        Index::create()
                            .col(GroupMembers::GroupId)
                            .col(GroupMembers::UserId),
                    )
                    .foreign_key(&mut fk(
                        GroupMembers::Table,
                        GroupMembers::GroupId,
                        Groups::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .foreign_key(&mut fk(
                        GroupMembers::Table,
                        GroupMembers::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        manager
            .create_table(
                Table::create()
                    .table(ApiTokens::Table)
                    .col(pk_uuid(ApiTokens::Id))
                    .col(uuid(ApiTokens::UserId))
                    .col(string(ApiTokens::Name))
                    .col(string(ApiTokens::TokenHash))
                    .col(string(ApiTokens::Prefix))
                    .col(timestamp_utc(ApiTokens::CreatedAt))
                    .col(timestamp_utc_null(ApiTokens::LastUsedAt))
                    .col(timestamp_utc_null(ApiTokens::ExpiresAt))
                    .col(timestamp_utc_null(ApiTokens::RevokedAt))
                    .foreign_key(&mut fk(
                        ApiTokens::Table,
                        ApiTokens::UserId,
                        Users::Table,
                        ForeignKeyAction::Cascade,
                    ))
                    .take(),
            )
            .await?;

        create_indexes(
            manager,
            [
                index(Groups::Table, [Groups::ParentId]),
                index(Groups::Table, [Groups::Path]),
                unique_index(Users::Table, [Users::Email]),
                // (group_id, user_id) is the primary key; user_id needs its own.
                index(GroupMembers::Table, [GroupMembers::UserId]),
                index(ApiTokens::Table, [ApiTokens::UserId]),
                unique_index(ApiTokens::Table, [ApiTokens::TokenHash]),
            ],
        )
        .await
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        // SQLite empties a table row by row before dropping it, and an immediate RESTRICT on
        // `parent_id` would refuse to delete a parent before its children: detach them first.
        if manager.get_database_backend() == DbBackend::Sqlite {
            manager
                .execute(
                    Query::update()
                        .table(Groups::Table)
                        .value(Groups::ParentId, Expr::null())
                        .take(),
                )
                .await?;
        }
        drop_tables(
            manager,
            [
                ApiTokens::Table.into_iden(),
                GroupMembers::Table.into_iden(),
                Users::Table.into_iden(),
                Groups::Table.into_iden(),
            ],
        )
        .await
    }
}

#[derive(DeriveIden)]
pub enum Groups {
    Table,
    Id,
    ParentId,
    Name,
    Path,
    Settings,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
pub enum Users {
    Table,
    Id,
    Email,
    Name,
    Role,
    Permissions,
    CreatedAt,
    UpdatedAt,
}

#[derive(DeriveIden)]
enum GroupMembers {
    Table,
    GroupId,
    UserId,
    Role,
    CreatedAt,
}

#[derive(DeriveIden)]
enum ApiTokens {
    Table,
    Id,
    UserId,
    Name,
    TokenHash,
    Prefix,
    CreatedAt,
    LastUsedAt,
    ExpiresAt,
    RevokedAt,
}
