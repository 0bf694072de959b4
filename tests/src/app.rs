//! [`TestApp`]: one `parley serve` process on its own storage, plus CLI helpers.
//!
//! The app owns its storage, so it can be stopped and started again on the same
//! database or data dir ([`TestApp::stop`], [`TestApp::start`], [`TestApp::restart`]),
//! for example to run `parley migrate` while no server is up, or killed as a crash
//! would ([`TestApp::kill`]). A [`crate::Cluster`] runs its HTTP process, `parley api`,
//! through a `TestApp` too, so both share every request and CLI helper.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::time::Duration;

use serde_json::Value;
use uuid::Uuid;

use crate::backend::{Backend, Storage};
use crate::server::{self, LISTENING, Server};

/// Set it to keep a failing test's temp root (data dir, logs) for a post-mortem.
const KEEP_VAR: &str = "PARLEY_TEST_KEEP";

/// Which role serves a [`TestApp`]'s HTTP API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HttpRole {
    /// `parley serve`: API, workers and reaper in one process; migrates its database.
    Serve,
    /// `parley api`: the API alone (distributed mode; the schema must be migrated).
    Api,
}

impl HttpRole {
    fn name(self) -> &'static str {
        match self {
            Self::Serve => "serve",
            Self::Api => "api",
        }
    }
}

/// A running (or stopped) Parley server owned by one test.
pub struct TestApp {
    /// `http://127.0.0.1:<port>` of the current server process (changes on restart).
    pub base_url: String,
    /// The bootstrap admin's bearer token (`PARLEY_BOOTSTRAP_ADMIN_TOKEN`).
    pub admin_token: String,
    /// The bootstrap admin's email.
    pub admin_email: String,
    pub backend: Backend,
    pub client: reqwest::Client,
    /// The environment every child gets (storage, bootstrap token, log level, extras).
    env: Vec<(String, String)>,
    role: HttpRole,
    server: Option<Server>,
    storage: Storage,
}

impl TestApp {
    /// Starts a server on fresh storage of `backend` with the default environment.
    pub async fn spawn(backend: Backend) -> Self {
        Self::spawn_with_env(backend, &[]).await
    }

    /// Like [`TestApp::spawn`], with extra variables for every child (server and CLI);
    /// they override the harness's own (e.g. `PARLEY_LOG`).
    pub async fn spawn_with_env(backend: Backend, extra_env: &[(&str, &str)]) -> Self {
        let mut app = Self::prepare(backend, extra_env, HttpRole::Serve).await;
        app.start().await;
        app
    }

    /// An app on fresh storage that is not started: nothing is created on it yet (an
    /// SQLite data dir does not exist; a PostgreSQL database is empty).
    pub async fn unstarted(backend: Backend, extra_env: &[(&str, &str)]) -> Self {
        Self::prepare(backend, extra_env, HttpRole::Serve).await
    }

    /// An app on fresh storage whose HTTP API `role` serves, not started yet.
    pub(crate) async fn prepare(
        backend: Backend,
        extra_env: &[(&str, &str)],
        role: HttpRole,
    ) -> Self {
        let storage = Storage::create(backend)
            .await
            .unwrap_or_else(|err| panic!("preparing {backend:?} storage: {err:#}"));
        let admin_token = format!("prl_{}", Uuid::now_v7().simple());
        let log_level = std::env::var("PARLEY_TEST_LOG").unwrap_or_else(|_| "warn".to_owned());
        let mut env = vec![
            (
                "PARLEY_BOOTSTRAP_ADMIN_TOKEN".to_owned(),
                admin_token.clone(),
            ),
            ("PARLEY_LOG".to_owned(), log_level),
        ];
        env.extend(storage.env());
        env.extend(
            extra_env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        let client = crate::http_client()
            .timeout(Duration::from_secs(30))
            .build()
            .expect("building the HTTP client");
        Self {
            base_url: String::new(),
            admin_token,
            admin_email: "admin@parley.local".to_owned(),
            backend,
            client,
            env,
            role,
            server: None,
            storage,
        }
    }

    /// Starts the server (`parley serve`, or `parley api` in a cluster) on this app's
    /// storage (after [`TestApp::stop`] or [`TestApp::kill`]).
    pub async fn start(&mut self) {
        assert!(self.server.is_none(), "the server is already running");
        let args: Vec<OsString> = vec![
            self.role.name().into(),
            "--listen".into(),
            "127.0.0.1:0".into(),
            "--data-dir".into(),
            self.storage.data_dir().into(),
        ];
        let server = Server::start(&self.env, &args, LISTENING, &self.storage.log_path())
            .await
            .unwrap_or_else(|err| panic!("{err:#}"));
        self.base_url.clone_from(&server.ready);
        self.server = Some(server);
    }

    /// Kills the server as a crash would: SIGKILL by PID, no graceful shutdown. Storage
    /// is kept; [`TestApp::start`] brings it back.
    pub async fn kill(&mut self) {
        let server = self.server.take().expect("the server is not running");
        server.kill().await;
    }

    /// The server's process id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.server.as_ref().and_then(Server::pid)
    }

    /// Stops the server (SIGTERM, then SIGKILL); storage is kept.
    pub async fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
    }

    /// Sends the server SIGTERM and waits up to `within` for it to exit: its exit status,
    /// or `None` if it had not exited (it is killed then). Storage is kept.
    pub async fn terminate(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let server = self.server.take().expect("the server is not running");
        server.terminate(within).await
    }

    /// Like [`TestApp::terminate`] with SIGINT (Ctrl-C).
    pub async fn interrupt(&mut self, within: Duration) -> Option<std::process::ExitStatus> {
        let server = self.server.take().expect("the server is not running");
        server.signal("INT", within).await
    }

    /// Stops and starts the server on the same storage; `base_url` changes.
    pub async fn restart(&mut self) {
        self.stop().await;
        self.start().await;
    }

    /// `Some(&admin_token)`, for the request helpers.
    pub fn admin(&self) -> Option<&str> {
        Some(&self.admin_token)
    }

    /// The data dir given to the server (`--data-dir`) and the CLI (`PARLEY_DATA_DIR`).
    pub fn data_dir(&self) -> PathBuf {
        self.storage.data_dir()
    }

    /// The temp root holding `data/` and `server.log`.
    pub fn root_dir(&self) -> &Path {
        self.storage.root()
    }

    /// This app's own PostgreSQL database URL (`None` on SQLite).
    pub fn database_url(&self) -> Option<&str> {
        self.storage.database_url()
    }

    /// The environment every child of this app gets.
    pub(crate) fn env(&self) -> &[(String, String)] {
        &self.env
    }

    /// Sets one variable for every child started from now on (server and CLI).
    pub fn set_env(&mut self, key: &str, value: &str) {
        self.env.retain(|(k, _)| k != key);
        self.env.push((key.to_owned(), value.to_owned()));
    }

    /// Runs `parley <args>` with the server's environment and returns its output.
    pub async fn cli(&self, args: &[&str]) -> Output {
        server::run_cli(&self.env, args).await
    }

    /// Like [`TestApp::cli`] with extra variables (they win over the app's own).
    pub async fn cli_with_env(&self, args: &[&str], extra_env: &[(&str, &str)]) -> Output {
        let mut env = self.env.clone();
        env.extend(
            extra_env
                .iter()
                .map(|(k, v)| ((*k).to_owned(), (*v).to_owned())),
        );
        server::run_cli(&env, args).await
    }

    /// Runs a CLI command that must succeed and returns its trimmed stdout.
    pub async fn cli_ok(&self, args: &[&str]) -> String {
        let output = self.cli(args).await;
        assert!(
            output.status.success(),
            "`parley {}` failed ({}):\nstdout: {}\nstderr: {}",
            args.join(" "),
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        String::from_utf8_lossy(&output.stdout).trim().to_owned()
    }

    /// Creates a user with the CLI (`user create`, then `token create`) and returns
    /// `(user_id, token)`. `role` is `student`, `teacher` or `admin`.
    pub async fn create_user(&self, email: &str, role: &str) -> (String, String) {
        let name = email.split('@').next().unwrap_or(email);
        let printed = self
            .cli_ok(&[
                "user", "create", "--email", email, "--name", name, "--role", role,
            ])
            .await;
        let user: Value = serde_json::from_str(&printed).unwrap_or_else(|err| {
            panic!("`parley user create` must print the user as JSON ({err}): {printed}")
        });
        let user_id = user["id"]
            .as_str()
            .unwrap_or_else(|| panic!("the created user has no string `id`: {user}"))
            .to_owned();
        let token = self.cli_ok(&["token", "create", "--user", email]).await;
        assert!(
            !token.is_empty() && !token.contains(char::is_whitespace),
            "`parley token create` must print only the token, got {token:?}"
        );
        (user_id, token)
    }

    /// A direct connection to the app's database, for assertions about what was stored
    /// (rows no endpoint shows yet, like `ai_usage`).
    pub async fn db(&self) -> sea_orm::DatabaseConnection {
        let url = match self.database_url() {
            Some(url) => url.to_owned(),
            None => format!(
                "sqlite://{}?mode=ro",
                self.data_dir().join("parley.db").display()
            ),
        };
        sea_orm::Database::connect(crate::connect_options(url))
            .await
            .expect("connecting to the app's database")
    }

    /// Counts the rows a SQL query (`SELECT COUNT(*) …`) finds.
    pub async fn count(&self, sql: &str) -> i64 {
        use sea_orm::ConnectionTrait;
        let db = self.db().await;
        let row = db
            .query_one_raw(sea_orm::Statement::from_string(
                db.get_database_backend(),
                sql.to_owned(),
            ))
            .await
            .unwrap_or_else(|err| panic!("{sql}: {err}"))
            .expect("a row");
        row.try_get_by_index::<i64>(0).expect("a count")
    }

    /// Runs hand-written SQL statements in one transaction on the app's database, as
    /// another writer would (on SQLite through a read-write connection of its own, which
    /// waits for the app's writer).
    pub async fn execute(&self, statements: &[String]) {
        use sea_orm::{ConnectionTrait, TransactionTrait};
        let url = match self.database_url() {
            Some(url) => url.to_owned(),
            None => format!(
                "sqlite://{}?mode=rw",
                self.data_dir().join("parley.db").display()
            ),
        };
        let mut options = crate::connect_options(url);
        options.max_connections(1);
        let db = sea_orm::Database::connect(options)
            .await
            .expect("connecting to the app's database");
        if db.get_database_backend() == sea_orm::DbBackend::Sqlite {
            db.execute_unprepared("PRAGMA busy_timeout = 10000")
                .await
                .expect("setting a busy timeout");
        }
        let txn = db.begin().await.expect("starting a transaction");
        for sql in statements {
            txn.execute_unprepared(sql)
                .await
                .unwrap_or_else(|err| panic!("{sql}: {err}"));
        }
        txn.commit().await.expect("committing");
    }

    /// A UUID as a SQL literal of this app's database, for hand-written queries: `'…'`
    /// on PostgreSQL, `X'…'` on SQLite (which stores UUIDs as 16-byte blobs).
    pub fn sql_uuid(&self, id: &str) -> String {
        let uuid = Uuid::parse_str(id).unwrap_or_else(|err| panic!("{id:?} is no UUID: {err}"));
        match self.backend {
            Backend::Postgres => format!("'{uuid}'"),
            Backend::Sqlite => format!("X'{}'", uuid.simple()),
        }
    }

    /// The first column of every row a SQL query finds, as text (select it as text:
    /// `SELECT id::text FROM …` on PostgreSQL).
    pub async fn query_strings(&self, sql: &str) -> Vec<String> {
        use sea_orm::ConnectionTrait;
        let db = self.db().await;
        db.query_all_raw(sea_orm::Statement::from_string(
            db.get_database_backend(),
            sql.to_owned(),
        ))
        .await
        .unwrap_or_else(|err| panic!("{sql}: {err}"))
        .iter()
        .map(|row| {
            row.try_get_by_index::<String>(0)
                .unwrap_or_else(|err| panic!("{sql}: the first column is not text: {err}"))
        })
        .collect()
    }

    /// Everything the server wrote (stdout and stderr, every start), unabridged.
    pub fn full_server_log(&self) -> String {
        std::fs::read_to_string(self.storage.log_path()).unwrap_or_default()
    }

    /// The last 100 lines the app's servers printed (all of it is in `server.log` under
    /// [`TestApp::root_dir`]).
    pub fn server_log(&self) -> String {
        let text = std::fs::read_to_string(self.storage.log_path()).unwrap_or_default();
        let lines: Vec<&str> = text.lines().collect();
        let start = lines.len().saturating_sub(100);
        lines[start..]
            .iter()
            .map(|line| format!("  {line}\n"))
            .collect()
    }
}

impl Drop for TestApp {
    fn drop(&mut self) {
        if std::thread::panicking() {
            eprintln!(
                "--- parley server output ({:?}) ---\n{}",
                self.backend,
                self.server_log()
            );
            if std::env::var_os(KEEP_VAR).is_some() {
                self.storage.keep();
                eprintln!(
                    "--- kept {} ({KEEP_VAR}) ---",
                    self.storage.root().display()
                );
            }
        }
        // Dropping `server` kills the child by its PID.
    }
}
