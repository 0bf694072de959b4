//! Where one test app keeps its data: a fresh PostgreSQL database, or SQLite in a data dir.
//!
//! Every app gets a temp root holding `data/` (the `--data-dir`, used by both backends)
//! and `server.log` (everything the child printed). On PostgreSQL the harness also
//! creates a database `t_<uuid>` in the cluster named by `PARLEY_TEST_PG_URL`, so tests
//! run in parallel without seeing each other's rows.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use sea_orm::{ConnectionTrait, Database};
use tempfile::TempDir;
use uuid::Uuid;

/// The PostgreSQL server URL exported by `scripts/test.sh` (its `postgres` database).
pub const PG_URL_VAR: &str = "PARLEY_TEST_PG_URL";
/// The Redis URL exported by `scripts/test.sh`.
pub const REDIS_URL_VAR: &str = "PARLEY_TEST_REDIS_URL";
/// The Redis Cluster URL (`redis+cluster://`, three primaries with a replica each)
/// exported by `scripts/test.sh`.
pub const REDIS_CLUSTER_URL_VAR: &str = "PARLEY_TEST_REDIS_CLUSTER_URL";

/// The database a [`crate::TestApp`] runs against.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Distributed-mode storage: a fresh database on the test PostgreSQL server.
    Postgres,
    /// Embedded-mode storage: SQLite inside the app's data dir.
    Sqlite,
}

/// The test Redis URL; panics with a pointer to `scripts/test.sh` when it is not set.
pub fn test_redis_url() -> String {
    required_env(REDIS_URL_VAR)
}

/// The test Redis Cluster's URL; panics with a pointer to `scripts/test.sh` when it is
/// not set.
pub fn test_redis_cluster_url() -> String {
    required_env(REDIS_CLUSTER_URL_VAR)
}

fn required_env(var: &str) -> String {
    std::env::var(var).unwrap_or_else(|_| {
        panic!(
            "{var} is not set: run the integration tests with scripts/test.sh, \
             which starts PostgreSQL and Redis and exports it"
        )
    })
}

/// One app's storage; it lives as long as the [`crate::TestApp`] (the temp root is
/// removed on drop unless a failing test runs with `PARLEY_TEST_KEEP=1`; the PostgreSQL
/// database is left to die with the test cluster).
#[derive(Debug)]
pub(crate) struct Storage {
    root: TempDir,
    database_url: Option<String>,
}

impl Storage {
    pub(crate) async fn create(backend: Backend) -> Result<Self> {
        let root = tempfile::Builder::new()
            .prefix("parley-test-")
            .tempdir()
            .context("creating the test's temp dir")?;
        std::fs::create_dir(root.path().join("data")).context("creating the data dir")?;
        let database_url = match backend {
            Backend::Postgres => Some(create_pg_database().await?),
            Backend::Sqlite => None,
        };
        Ok(Self { root, database_url })
    }

    pub(crate) fn data_dir(&self) -> PathBuf {
        self.root.path().join("data")
    }

    pub(crate) fn log_path(&self) -> PathBuf {
        self.root.path().join("server.log")
    }

    pub(crate) fn root(&self) -> &Path {
        self.root.path()
    }

    /// Keeps the temp root after the test (for a post-mortem of a failed test).
    pub(crate) fn keep(&mut self) {
        self.root.disable_cleanup(true);
    }

    pub(crate) fn database_url(&self) -> Option<&str> {
        self.database_url.as_deref()
    }

    /// The variables that point the binary (server and CLI alike) at this storage.
    pub(crate) fn env(&self) -> Vec<(String, String)> {
        let mut env = vec![(
            "PARLEY_DATA_DIR".to_owned(),
            self.data_dir().display().to_string(),
        )];
        if let Some(url) = &self.database_url {
            env.push(("PARLEY_DATABASE_URL".to_owned(), url.clone()));
        }
        env
    }
}

/// Creates `t_<uuid>` on the test server and returns its URL.
async fn create_pg_database() -> Result<String> {
    let server_url = required_env(PG_URL_VAR);
    let name = format!("t_{}", Uuid::now_v7().simple());

    let mut options = crate::connect_options(&server_url);
    options.max_connections(1);
    let conn = Database::connect(options)
        .await
        .with_context(|| format!("connecting to {PG_URL_VAR}={server_url}"))?;
    conn.execute_unprepared(&format!("CREATE DATABASE {name}"))
        .await
        .with_context(|| format!("creating database {name}"))?;
    // Best effort: the pool would close on drop anyway.
    let _ = conn.close().await;

    let mut url = reqwest::Url::parse(&server_url)
        .with_context(|| format!("parsing {PG_URL_VAR}={server_url}"))?;
    url.set_path(&format!("/{name}"));
    Ok(url.into())
}
