//! Full-text search over messages (the `searchPriorSessions` function: a user searches
//! their own earlier conversations).
//!
//! * PostgreSQL: a stored generated column `messages.search` =
//!   `to_tsvector('simple', content)` and a GIN index on it. The database keeps it up to
//!   date on every insert and update; sea-orm selects columns by name, so the entity
//!   does not need to know it exists.
//! * SQLite: an FTS5 external-content table `messages_fts(content)` over `messages`
//!   (`content_rowid` the implicit `rowid`: the index stores no second copy of the text),
//!   kept in step by `AFTER INSERT/UPDATE/DELETE` triggers, and rebuilt from the rows
//!   already there. Should the rowids of `messages` ever change (a `VACUUM` may renumber
//!   the rowids of a table without an `INTEGER PRIMARY KEY`), rebuild the index:
//!   `INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')`.
//!
//! Both tokenize without stemming or stop words (`simple`; `unicode61` with
//! `remove_diacritics 0`, since `simple` keeps accents too), so the two backends find the
//! same messages for the same words. sea-query cannot express generated columns, GIN
//! indexes, virtual tables or triggers: this migration is raw SQL per backend.

use sea_orm_migration::{prelude::*, sea_orm::DbBackend};

#[derive(DeriveMigrationName)]
pub struct Migration;

const POSTGRES_UP: &[&str] = &[
    "ALTER TABLE messages ADD COLUMN search tsvector \
     GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED",
    "CREATE INDEX idx_messages_search ON messages USING GIN (search)",
];

const POSTGRES_DOWN: &[&str] = &[
    "DROP INDEX IF EXISTS idx_messages_search",
    "ALTER TABLE messages DROP COLUMN IF EXISTS search",
];

const SQLITE_UP: &[&str] = &[
    "CREATE VIRTUAL TABLE messages_fts USING fts5(\
     content, content='messages', content_rowid='rowid', \
     tokenize='unicode61 remove_diacritics 0')",
    "CREATE TRIGGER messages_fts_after_insert AFTER INSERT ON messages BEGIN \
     INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content); \
     END",
    "CREATE TRIGGER messages_fts_after_delete AFTER DELETE ON messages BEGIN \
     INSERT INTO messages_fts(messages_fts, rowid, content) \
     VALUES ('delete', old.rowid, old.content); \
     END",
    "CREATE TRIGGER messages_fts_after_update AFTER UPDATE OF content ON messages BEGIN \
     INSERT INTO messages_fts(messages_fts, rowid, content) \
     VALUES ('delete', old.rowid, old.content); \
     INSERT INTO messages_fts(rowid, content) VALUES (new.rowid, new.content); \
     END",
    // Index the messages written before this migration.
    "INSERT INTO messages_fts(messages_fts) VALUES ('rebuild')",
];

const SQLITE_DOWN: &[&str] = &[
    "DROP TRIGGER IF EXISTS messages_fts_after_update",
    "DROP TRIGGER IF EXISTS messages_fts_after_delete",
    "DROP TRIGGER IF EXISTS messages_fts_after_insert",
    "DROP TABLE IF EXISTS messages_fts",
];

async fn run(manager: &SchemaManager<'_>, statements: &[&str]) -> Result<(), DbErr> {
    let db = manager.get_connection();
    for sql in statements {
        db.execute_unprepared(sql).await?;
    }
    Ok(())
}

fn unsupported(backend: DbBackend) -> DbErr {
    DbErr::Migration(format!(
        "full-text search over messages is built for PostgreSQL and SQLite, not {backend:?}"
    ))
}

#[async_trait::async_trait]
impl MigrationTrait for Migration {
    async fn up(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        match manager.get_database_backend() {
            DbBackend::Postgres => run(manager, POSTGRES_UP).await,
            DbBackend::Sqlite => run(manager, SQLITE_UP).await,
            other => Err(unsupported(other)),
        }
    }

    async fn down(&self, manager: &SchemaManager) -> Result<(), DbErr> {
        match manager.get_database_backend() {
            DbBackend::Postgres => run(manager, POSTGRES_DOWN).await,
            DbBackend::Sqlite => run(manager, SQLITE_DOWN).await,
            other => Err(unsupported(other)),
        }
    }
}
