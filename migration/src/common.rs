//! Small builders the migrations share, so each table reads as its columns and keys.
//!
//! Naming: foreign keys `fk_<table>_<column>`, indexes `idx_<table>_<columns>`, unique
//! indexes `uq_<table>_<columns>`. Index names are unique per database on both backends.
//! Foreign keys are declared inside `CREATE TABLE` because SQLite cannot add them later.

use sea_orm_migration::{prelude::*, schema::*};

/// Width of the string columns that hold enum values (`state`, `role`, …).
const ENUM_LEN: u32 = 24;

/// A non-null string column holding an enum value (entity `DeriveActiveEnum`s use the same width).
pub fn enum_string<T: IntoIden>(col: T) -> ColumnDef {
    string_len(col, ENUM_LEN)
}

/// A non-null `timestamp with time zone` column (UTC in practice).
pub fn timestamp_utc<T: IntoIden>(col: T) -> ColumnDef {
    timestamp_with_time_zone(col)
}

/// A nullable `timestamp with time zone` column.
pub fn timestamp_utc_null<T: IntoIden>(col: T) -> ColumnDef {
    timestamp_with_time_zone_null(col)
}

/// A foreign key from `table.col` to `parent.id`.
pub fn fk<T, C, P>(
    table: T,
    col: C,
    parent: P,
    on_delete: ForeignKeyAction,
) -> ForeignKeyCreateStatement
where
    T: IntoIden,
    C: IntoIden,
    P: IntoIden,
{
    let (table, col) = (table.into_iden(), col.into_iden());
    ForeignKey::create()
        .name(format!("fk_{table}_{col}"))
        .from(table, col)
        .to(parent, "id")
        .on_delete(on_delete)
        .on_update(ForeignKeyAction::NoAction)
        .take()
}

/// A plain index on `cols` of `table`.
pub fn index<T, C, I>(table: T, cols: I) -> IndexCreateStatement
where
    T: IntoIden,
    C: IntoIden,
    I: IntoIterator<Item = C>,
{
    named_index("idx", table.into_iden(), cols)
}

/// A unique index on `cols` of `table`.
pub fn unique_index<T, C, I>(table: T, cols: I) -> IndexCreateStatement
where
    T: IntoIden,
    C: IntoIden,
    I: IntoIterator<Item = C>,
{
    named_index("uq", table.into_iden(), cols).unique().take()
}

fn named_index<C, I>(kind: &str, table: DynIden, cols: I) -> IndexCreateStatement
where
    C: IntoIden,
    I: IntoIterator<Item = C>,
{
    let cols: Vec<DynIden> = cols.into_iter().map(IntoIden::into_iden).collect();
    let mut name = format!("{kind}_{table}");
    let mut stmt = Index::create();
    for col in cols {
        name.push('_');
        name.push_str(&col.to_string());
        stmt.col(col);
    }
    stmt.name(name).table(table).take()
}

/// Creates each index in order.
pub async fn create_indexes(
    manager: &SchemaManager<'_>,
    indexes: impl IntoIterator<Item = IndexCreateStatement>,
) -> Result<(), DbErr> {
    for index in indexes {
        manager.create_index(index).await?;
    }
    Ok(())
}

/// Drops each table in order (pass them children first). Their indexes go with them.
pub async fn drop_tables<T: IntoIden + 'static>(
    manager: &SchemaManager<'_>,
    tables: impl IntoIterator<Item = T>,
) -> Result<(), DbErr> {
    for table in tables {
        manager
            .drop_table(Table::drop().table(table).take())
            .await?;
    }
    Ok(())
}

/// Adds one column to a table (a migration's `up`).
pub async fn add_column<T: IntoIden>(
    manager: &SchemaManager<'_>,
    table: T,
    mut column: ColumnDef,
) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).add_column(&mut column).take())
        .await
}

/// Drops one column from a table (the `down` of [`add_column`]).
pub async fn drop_column<T: IntoIden, C: IntoIden>(
    manager: &SchemaManager<'_>,
    table: T,
    column: C,
) -> Result<(), DbErr> {
    manager
        .alter_table(Table::alter().table(table).drop_column(column).take())
        .await
}
