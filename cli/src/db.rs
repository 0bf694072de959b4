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
/// at C = 32 against 258–265), one slower too. Since then the writer writes through a
/// connection of its own, beside these two.
const POSTGRES_POOL: u32 = 10;
const SQLITE_POOL: u32 = 2;
/// How long a PostgreSQL connection may sit in the pool before it is pinged on checkout.
const IDLE_BEFORE_PING: Duration = Duration::from_secs(30);
/// How often embedded mode's checkpointer copies the WAL into the database file.
const CHECKPOINT_EVERY: Duration = Duration::from_millis(500);

/// The connection for reads that may lag the primary (admin metrics, message lists,
/// feeds rebuilt after the event log's retention): the replica of `database.read_url`
/// when it is set, else the primary's own pool (`primary`).
pub async fn connect_reads(
    settings: &Settings,
    primary: &DatabaseConnection,
) -> anyhow::Result<DatabaseConnection> {
    let Some(url) = &settings.database.read_url else {
        return Ok(primary.clone());
    };
    let pool = settings.database.max_connections.unwrap_or(POSTGRES_POOL);
    let mut options = pool_options(settings, url.expose_secret().to_owned(), pool);
    options.test_before_acquire_if_idle_for(IDLE_BEFORE_PING);
    // Lazily: a replica that is down at start-up fails the reads routed to it (503), not
    // the process.
    options.connect_lazy(true);
    Database::connect(options)
        .await
        .context("connecting to the read replica (database.read_url)")
}

/// What every pool of Parley's has: `pool` connections, the connect and acquire
/// timeouts, no logging of statements, and no reaper: sqlx 0.9.0's pool task that
/// closes idle and old connections can spin a runtime thread for good (a `num_idle`
/// underflow, sqlx#3645, fixed upstream after 0.9.0; it hung a test process here).
/// Connections are few, opened on demand, and a PostgreSQL one idle past
/// `IDLE_BEFORE_PING` is pinged before use (docs/decisions.md, "No pool reaper").
fn pool_options(settings: &Settings, url: String, pool: u32) -> ConnectOptions {
    let mut options = ConnectOptions::new(url);
    let timeout = Duration::from_secs(settings.database.connect_timeout_s);
    options
        .idle_timeout(None)
        .max_lifetime(None)
        .max_connections(pool)
        .connect_timeout(timeout)
        .acquire_timeout(timeout)
        .sqlx_logging(false);
    options
}

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
    let mut options = pool_options(settings, url, pool);
    // sqlx pings a connection each time the pool hands it out: one more round trip for
    // every statement outside a transaction and every `BEGIN`. An SQLite file has no
    // peer to lose; a PostgreSQL connection is checked once it has been idle long enough
    // for a server, proxy or firewall to have dropped it (a broken busy connection fails
    // its statement, and the pool replaces it).
    if sqlite {
        options.test_before_acquire(false);
    } else {
        options.test_before_acquire_if_idle_for(IDLE_BEFORE_PING);
    }
    options
        // Embedded mode: WAL lets readers run beside the one writer, and a writer waits
        // for the lock (busy timeout) instead of failing; write transactions start
        // IMMEDIATE (`parley_entity::query::begin_write`) so they never have to upgrade.
        .map_sqlx_sqlite_opts(|opts| {
            opts.journal_mode(SqliteJournalMode::Wal)
                .synchronous(SqliteSynchronous::Normal)
                .busy_timeout(Duration::from_secs(10))
                // No connection checkpoints when its commit takes the WAL past 1,000
                // pages: the checkpointer does, off the writer's path.
                .pragma("wal_autocheckpoint", "0")
        });
    let db = Database::connect(options)
        .await
        .with_context(|| format!("connecting to the database ({})", describe(settings)))?;
    if sqlite {
        spawn_checkpointer(&db);
    }
    Ok(db)
}

/// Copies the WAL's committed pages into the database file every [`CHECKPOINT_EVERY`],
/// on a connection of its own, for as long as the process runs.
///
/// SQLite's default is that the commit that takes the WAL past 1,000 pages checkpoints
/// it: that commit copies ~4 MB and waits for `fsync` while it holds the write lock. In
/// embedded mode that was every ~70 turns, on the writer every hot write waits for
/// (`parley_entity::query::on_writer`): at C = 32, 262–291 turns/s with it and 366–390
/// without, TTFT p99 116–124 → 97–100 ms (BENCHMARKS.md, #9). A `PASSIVE` checkpoint
/// takes no lock writers or readers wait for; it copies what no reader still needs, and
/// the writer starts the WAL over once it is all copied, so the file stays about as
/// large as half a second of writes (it is reused, not truncated). What the last
/// half-second left in it at exit is read back by the next open, as always in WAL mode.
fn spawn_checkpointer(db: &DatabaseConnection) {
    let options = (*db.get_sqlite_connection_pool().connect_options()).clone();
    parley_runtime::queue::sqlite::spawn_wal_checkpointer(options, CHECKPOINT_EVERY, || true);
}

/// Opens the database of an existing deployment, for the admin commands: an embedded
/// database must already exist (a mistyped `--data-dir` must not create an empty one),
/// and its schema must be migrated.
pub async fn open_existing(settings: &Settings) -> anyhow::Result<DatabaseConnection> {
    if settings.database.url.is_none() {
        let file = settings.data_dir.join("parley.db");
        anyhow::ensure!(
            file.exists(),
            "no database at {}: run `parley serve` first, or name the data directory with --data-dir",
            file.display()
        );
    }
    let db = connect(settings).await?;
    ensure_migrated(&db).await?;
    Ok(db)
}

/// Applies pending migrations: one line at info with how many, each at debug.
pub async fn migrate_up(db: &DatabaseConnection) -> anyhow::Result<()> {
    let pending = Migrator::get_pending_migrations(db)
        .await
        .context("reading migration status")?;
    if pending.is_empty() {
        tracing::debug!("the database schema is up to date");
        return Ok(());
    }
    for migration in &pending {
        tracing::debug!(migration = migration.name(), "applying a migration");
    }
    Migrator::up(db, None)
        .await
        .context("applying migrations")?;
    tracing::info!(
        applied = pending.len(),
        latest = pending.last().map(|m| m.name()).unwrap_or_default(),
        "migrated the database"
    );
    Ok(())
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

#[cfg(test)]
mod tests {
    use sea_orm::ConnectionTrait;

    use super::*;
    use crate::config::Overrides;

    fn settings_in(dir: &std::path::Path) -> Settings {
        let overrides = Overrides {
            data_dir: Some(dir.to_owned()),
            ..Overrides::default()
        };
        // Not `Settings::load`: a config test may have set an invalid `PARLEY_*` variable
        // for a moment (figment's `Jail` is process-wide).
        Settings::defaults_with(overrides).expect("default settings")
    }

    /// sea-orm's default pings a connection on every checkout: a round trip more for each
    /// statement outside a transaction. Neither backend's pool may do that, nor run the
    /// reaper task that closes idle and old connections (it can spin: sqlx#3645).
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    #[allow(
        clippy::disallowed_methods,
        reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
    )]
    async fn pools_do_not_ping_on_every_checkout() {
        let dir = std::env::temp_dir().join(format!("parley-db-{}", uuid::Uuid::now_v7()));
        let mut settings = settings_in(&dir);
        let sqlite = connect(&settings).await.expect("opening the database");
        let options = sqlite.get_sqlite_connection_pool().options();
        let pinging = options.get_test_before_acquire();
        let reaping = (options.get_idle_timeout(), options.get_max_lifetime());
        sqlite.close().await.expect("closing");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(!pinging, "the SQLite pool pings");
        assert_eq!(reaping, (None, None), "the SQLite pool runs a reaper");
        // PostgreSQL: the server scripts/test.sh starts.
        let Ok(server) = std::env::var("PARLEY_TEST_PG_URL") else {
            eprintln!("PARLEY_TEST_PG_URL is not set: skipping the PostgreSQL pool");
            return;
        };
        settings.database.url = Some(server.into());
        let postgres = connect(&settings).await.expect("connecting to PostgreSQL");
        let pool = postgres.get_postgres_connection_pool();
        assert!(
            !pool.options().get_test_before_acquire(),
            "the PostgreSQL pool pings"
        );
        assert_eq!(
            (
                pool.options().get_idle_timeout(),
                pool.options().get_max_lifetime()
            ),
            (None, None),
            "the PostgreSQL pool runs a reaper"
        );
        postgres.close().await.expect("closing");
    }

    /// Without a checkpointer (and with SQLite's default of checkpointing at 1,000 pages,
    /// more than this test writes) the rows would stay in the WAL while connections are
    /// open, and the database file would not grow.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn embedded_mode_checkpoints_the_wal_in_the_background() {
        let dir = std::env::temp_dir().join(format!("parley-db-{}", uuid::Uuid::now_v7()));
        let settings = settings_in(&dir);
        let db = connect(&settings).await.expect("opening the database");
        let file = dir.join("parley.db");
        db.execute_unprepared("CREATE TABLE filler (body TEXT NOT NULL)")
            .await
            .expect("creating a table");
        tokio::time::sleep(CHECKPOINT_EVERY * 3).await;
        let empty = std::fs::metadata(&file).expect("the database file").len();
        for _ in 0..20 {
            db.execute_unprepared(
                "INSERT INTO filler (body) SELECT printf('%.1000c', 'x') FROM \
                 (WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100) \
                 SELECT i FROM n)",
            )
            .await
            .expect("writing rows");
        }
        let deadline = tokio::time::Instant::now() + CHECKPOINT_EVERY * 20;
        let grown = loop {
            let len = std::fs::metadata(&file).expect("the database file").len();
            if len > empty + 1_000_000 || tokio::time::Instant::now() > deadline {
                break len;
            }
            tokio::time::sleep(CHECKPOINT_EVERY / 5).await;
        };
        db.close().await.expect("closing");
        let _ = std::fs::remove_dir_all(&dir);
        assert!(
            grown > empty + 1_000_000,
            "2 MB of rows reached the database file ({empty} → {grown} bytes)"
        );
    }
}
