//! Connecting to the system of record: PostgreSQL when `database.url` is set, otherwise
//! an SQLite file in the data directory (embedded mode). Migrations run through the one
//! `Migrator` of `parley-migration`.

use std::time::Duration;

use anyhow::Context;
use parley_migration::{Migrator, MigratorTrait};
use sea_orm::{
    ConnectOptions, Database, DatabaseConnection,
    sqlx::sqlite::{SqliteJournalMode, SqliteSynchronous},
};
use secrecy::ExposeSecret;

use crate::config::Settings;

/// Which database a URL points at, for messages that must not print the URL itself.
pub fn describe(settings: &Settings) -> String {
    match &settings.database.url {
        Some(url) if url.expose_secret().starts_with("sqlite:") => "sqlite (configured)".into(),
        Some(_) => "postgresql".into(),
        None => format!(
            "sqlite at {}",
            settings.data_dir.join("parley.db").display()
        ),
    }
}

/// Pool sizes when `database.max_connections` is absent. SQLite lets one connection write
/// at a time; the others wait in its busy handler, which sleeps 1, 2, 5, … up to 100 ms
/// between tries and so may sleep on past the moment the lock is free. With ten
/// connections, embedded mode's turns waited there: TTFT p99 doubled at C = 32
/// (BENCHMARKS.md, #9). Two connections keep a reader going beside the writer, and the
/// rest wait in the pool's queue, which hands a connection over as soon as it is back.
/// The hot writes take turns on a writer thread (`parley_entity::query::on_writer`);
/// with that, three and four connections measured slower than two (220 and 197 turns/s
/// at C = 32 against 258–265), one slower too.
const POSTGRES_POOL: u32 = 10;
const SQLITE_POOL: u32 = 2;

pub async fn connect(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    let sqlite = settings
        .database
        .url
        .as_ref()
        .is_none_or(|url| url.expose_secret().starts_with("sqlite:"));
    let pool = settings.database.max_connections.unwrap_or(if sqlite {
        SQLITE_POOL
    } else {
        POSTGRES_POOL
    });
    let url = match &settings.database.url {
        Some(url) => url.expose_secret().to_owned(),
        None => {
            std::fs::create_dir_all(&settings.data_dir).with_context(|| {
                format!(
                    "creating the data directory {}",
                    settings.data_dir.display()
                )
            })?;
            format!(
                "sqlite://{}?mode=rwc",
                settings.data_dir.join("parley.db").display()
            )
        }
    };
    let mut options = ConnectOptions::new(url);
    options
        .max_connections(pool)
        .connect_timeout(Duration::from_secs(settings.database.connect_timeout_s))
        .acquire_timeout(Duration::from_secs(settings.database.connect_timeout_s))
        .sqlx_logging(false)
        // Embedded mode: WAL lets readers run beside the one writer, and a writer waits
        // for the lock (busy timeout) instead of failing; write transactions start
        // IMMEDIATE (`parley_entity::query::begin_write`) so they never have to upgrade.
        .map_sqlx_sqlite_opts(|opts| {
            opts.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
        });
    Database::connect(options)
        .await
        .with_context(|| format!("connecting to the database ({})", describe(settings)))
}

/// Applies pending migrations.
pub async fn migrate_up(db: &DatabaseConnection) -> anyhow::Result<()> {
    Migrator::up(db, None).await.context("applying migrations")
}

/// Fails when migrations are pending (for roles that must not change the schema).
pub async fn ensure_migrated(db: &DatabaseConnection) -> anyhow::Result<()> {
    let pending = Migrator::get_pending_migrations(db)
        .await
        .context("reading migration status")?;
    if !pending.is_empty() {
        anyhow::bail!(
            "{} migration(s) pending: run `parley migrate up` first",
            pending.len()
        );
    }
    Ok(())
}
