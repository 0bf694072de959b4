//! `parley backup --out DIR`: a consistent copy of an embedded deployment's data
//! directory, taken while it runs (docs/operations.md, "Backup and restore").
//!
//! Each SQLite file of the data directory — the database (`parley.db`) and the job
//! queue (`queue.db`) — is copied with `VACUUM INTO`, which reads one snapshot of the
//! file (WAL mode lets it read beside the running writer) and writes a new, compact
//! database: what a file copy of a live WAL database cannot promise. Restoring is
//! stopping Parley and starting it on the copy (`--data-dir DIR`). The database is
//! copied before the queue, so a job the copy's queue holds always has its prompt in
//! the copy's database; a prompt whose job the copy missed is found again by the
//! reaper, as after a crash. A PostgreSQL deployment is backed up with PostgreSQL's
//! own tools (`pg_dump`, or base backups with WAL archiving).

use std::path::{Path, PathBuf};

use anyhow::{Context, bail, ensure};
use sea_orm::sqlx::{
    self, Connection,
    sqlite::{SqliteConnectOptions, SqliteConnection},
};
use secrecy::ExposeSecret;

use crate::config::Settings;

/// The data directory's SQLite files, in the order they are copied.
const FILES: [&str; 2] = ["parley.db", "queue.db"];

/// Copies the embedded deployment's SQLite files into `out` (created; it must not hold
/// them already); returns the files written.
pub async fn run(settings: &Settings, out: &Path) -> anyhow::Result<Vec<PathBuf>> {
    if let Some(url) = &settings.database.url {
        if !url.expose_secret().starts_with("sqlite:") {
            bail!(
                "`parley backup` copies an embedded (SQLite) deployment; back PostgreSQL up with pg_dump or base backups (docs/operations.md)"
            );
        }
        bail!(
            "`parley backup` copies the data directory; with `database.url` set to an SQLite file, copy that file with `sqlite3 FILE \".backup OUT\"`"
        );
    }
    let source = &settings.data_dir;
    ensure!(
        source.join(FILES[0]).exists(),
        "no database at {}: name the data directory with --data-dir",
        source.join(FILES[0]).display()
    );
    std::fs::create_dir_all(out).with_context(|| format!("creating {}", out.display()))?;
    let mut written = Vec::new();
    for name in FILES {
        let from = source.join(name);
        if !from.exists() {
            continue;
        }
        let to = out.join(name);
        ensure!(
            !to.exists(),
            "{} exists already: back up into a new directory",
            to.display()
        );
        copy(&from, &to)
            .await
            .with_context(|| format!("copying {} to {}", from.display(), to.display()))?;
        written.push(to);
    }
    Ok(written)
}

/// One consistent copy of the SQLite database `from` at `to`.
async fn copy(from: &Path, to: &Path) -> anyhow::Result<()> {
    let options = SqliteConnectOptions::new()
        .filename(from)
        .create_if_missing(false)
        // The running server's writer may hold the lock for a moment.
        .busy_timeout(std::time::Duration::from_secs(10));
    let mut connection = SqliteConnection::connect_with(&options).await?;
    let target = to
        .to_str()
        .context("the backup directory's path is not UTF-8")?;
    sqlx::query("VACUUM INTO ?")
        .bind(target)
        .execute(&mut connection)
        .await?;
    connection.close().await?;
    Ok(())
}
