//! Test support for query methods that only a real database can check (full-text
//! search, upserts, guarded updates): a migrated database per backend and the rows tests
//! hang their data on.
//!
//! [`on_both_backends!`] writes one test twice, as `<name>::sqlite` (an in-memory SQLite
//! database) and `<name>::postgres` (a fresh database on the server named by
//! `PARLEY_TEST_PG_URL`, which `scripts/test.sh` exports; without it the PostgreSQL test
//! says so and passes). No async test runtime is a dependency: the futures run on sqlx's
//! `test_block_on`, reached through sea-orm.

use sea_orm::{ActiveModelTrait, ConnectionTrait, Database, DatabaseConnection, Set};
use uuid::Uuid;

use parley_migration::{Migrator, MigratorTrait};

use crate::{
    enums::{MessageRole, PromptState, UserRole},
    messages, prompts, sessions,
};

/// The PostgreSQL server of the test suite (its `postgres` database).
pub const PG_URL_VAR: &str = "PARLEY_TEST_PG_URL";

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    /// An SQLite file, opened as embedded mode opens it (WAL, a pool of two): its hot
    /// writes go through the writer thread's own connection in batches.
    SqliteFile,
    Postgres,
}

/// A migrated, empty database of `backend`; `None` for PostgreSQL when no test server is
/// configured.
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
)]
pub async fn database(backend: Backend) -> Option<DatabaseConnection> {
    let db = match backend {
        Backend::Sqlite => Database::connect("sqlite::memory:")
            .await
            .expect("opening in-memory SQLite"),
        Backend::SqliteFile => {
            let file = std::env::temp_dir().join(format!("parley-entity-{}.db", Uuid::now_v7()));
            let mut options =
                sea_orm::ConnectOptions::new(format!("sqlite://{}?mode=rwc", file.display()));
            options
                .max_connections(2)
                .test_before_acquire(false)
                .sqlx_logging(false)
                .map_sqlx_sqlite_opts(|opts| {
                    opts.journal_mode(sea_orm::sqlx::sqlite::SqliteJournalMode::Wal)
                        .busy_timeout(std::time::Duration::from_secs(10))
                });
            Database::connect(options)
                .await
                .unwrap_or_else(|err| panic!("opening {}: {err}", file.display()))
        }
        Backend::Postgres => {
            let server = std::env::var(PG_URL_VAR).ok()?;
            let name = format!("t_{}", Uuid::now_v7().simple());
            let admin = Database::connect(server.as_str())
                .await
                .unwrap_or_else(|err| panic!("connecting to {PG_URL_VAR}={server}: {err}"));
            admin
                .execute_unprepared(&format!("CREATE DATABASE {name}"))
                .await
                .unwrap_or_else(|err| panic!("creating database {name}: {err}"));
            let _ = admin.close().await;
            Database::connect(database_url(&server, &name))
                .await
                .unwrap_or_else(|err| panic!("connecting to database {name}: {err}"))
        }
    };
    Migrator::up(&db, None).await.expect("migrating");
    Some(db)
}

/// `server` (`postgres://…/postgres[?…]`) with its database replaced by `name`.
fn database_url(server: &str, name: &str) -> String {
    let (base, query) = match server.split_once('?') {
        Some((base, query)) => (base, Some(query)),
        None => (server, None),
    };
    let authority_end = base
        .find("://")
        .map(|at| at + 3)
        .and_then(|start| base[start..].find('/').map(|slash| start + slash))
        .unwrap_or(base.len());
    let mut url = format!("{}/{name}", &base[..authority_end]);
    if let Some(query) = query {
        url.push('?');
        url.push_str(query);
    }
    url
}

/// Runs `body` on a fresh database of `backend`, or skips it (PostgreSQL without a test
/// server).
pub fn run<F, Fut>(backend: Backend, body: F)
where
    F: FnOnce(DatabaseConnection) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    sea_orm::sqlx::test_block_on(async move {
        match database(backend).await {
            Some(db) => {
                let file = (backend == Backend::SqliteFile).then(|| {
                    let options = db.get_sqlite_connection_pool().connect_options();
                    options.get_filename().to_owned()
                });
                body(db).await;
                for file in file.iter() {
                    for suffix in ["", "-wal", "-shm"] {
                        let _ = std::fs::remove_file(format!("{}{suffix}", file.display()));
                    }
                }
            }
            None => eprintln!("{PG_URL_VAR} is not set: skipping the PostgreSQL run"),
        }
    });
}

/// Defines a module `name` with two tests, `name::sqlite` and `name::postgres`, each
/// running `|db| async move { … }` on a fresh migrated database of its backend.
macro_rules! on_both_backends {
    ($name:ident, |$db:ident| $body:expr) => {
        mod $name {
            #[allow(
                unused_imports,
                reason = "a test body need not use what its module imports"
            )]
            use super::*;

            #[test]
            fn sqlite() {
                $crate::query::testing::run(
                    $crate::query::testing::Backend::Sqlite,
                    |$db| async move { $body },
                );
            }

            #[test]
            fn postgres() {
                $crate::query::testing::run(
                    $crate::query::testing::Backend::Postgres,
                    |$db| async move { $body },
                );
            }
        }
    };
}
pub(crate) use on_both_backends;

/// A user of `role`.
pub async fn user(db: &DatabaseConnection, role: UserRole) -> Uuid {
    let email = format!("{}@example.com", Uuid::now_v7().simple());
    super::users::create(
        db,
        super::users::NewUser {
            email,
            name: "Test".into(),
            role,
            permissions: vec![],
        },
    )
    .await
    .expect("creating a user")
    .id
}

/// A session of `user_id` with a tool of its own (in a group of its own).
pub async fn session(db: &DatabaseConnection, user_id: Uuid) -> sessions::Model {
    let group = super::groups::create(
        db,
        super::groups::NewGroup {
            name: "School".into(),
            parent_id: None,
            settings: None,
        },
    )
    .await
    .expect("creating a group");
    let tool = super::tools::create(
        db,
        super::tools::NewTool {
            group_id: group.id,
            name: "Tutor".into(),
            kind: "chat".into(),
            definition: parley_protocol::config::ToolDefinition::new("Help."),
        },
    )
    .await
    .expect("creating a tool");
    let who = super::sessions::Opener {
        user_id,
        is_admin: true,
    };
    let req = super::sessions::OpenSession {
        tool_id: tool.id,
        assignment_id: None,
        submission_id: None,
        rid: None,
    };
    super::sessions::open(db, who, req, super::now())
        .await
        .expect("opening a session")
}

/// Appends a message to a session.
pub async fn message(
    db: &DatabaseConnection,
    session_id: Uuid,
    role: MessageRole,
    content: &str,
) -> messages::Model {
    let new = super::conversation::NewMessage {
        session_id,
        role,
        content: content.to_owned(),
        prompt_id: None,
        is_complete: true,
    };
    super::conversation::append_message(db, new, super::now())
        .await
        .expect("appending a message")
}

/// A prompt of a session (state `in_progress`, as while its function calls run).
pub async fn prompt(db: &DatabaseConnection, session_id: Uuid) -> prompts::Model {
    let now = super::now();
    prompts::ActiveModel {
        id: Set(Uuid::now_v7()),
        session_id: Set(session_id),
        user_message_id: Set(None),
        assistant_message_id: Set(None),
        state: Set(PromptState::InProgress),
        attempt: Set(1),
        model: Set(None),
        vendor: Set(None),
        route: Set(None),
        system_message: Set(None),
        error_code: Set(None),
        error: Set(None),
        idempotency_key: Set(None),
        request_hash: Set(None),
        cancel_requested_at: Set(None),
        created_at: Set(now),
        started_at: Set(Some(now)),
        completed_at: Set(None),
        input: Set(None),
        lease_owner: Set(None),
        lease_expires_at: Set(None),
        response: Set(None),
        seq_ceiling: Set(0),
    }
    .insert(db)
    .await
    .expect("creating a prompt")
}

mod tests {
    use super::database_url;

    #[test]
    fn database_urls_keep_server_and_options() {
        assert_eq!(
            database_url("postgres://postgres@127.0.0.1:5432/postgres", "t_1"),
            "postgres://postgres@127.0.0.1:5432/t_1"
        );
        assert_eq!(
            database_url("postgres://u:p@h/postgres?sslmode=disable", "t_2"),
            "postgres://u:p@h/t_2?sslmode=disable"
        );
        assert_eq!(database_url("postgres://h:1", "t_3"), "postgres://h:1/t_3");
    }
}
