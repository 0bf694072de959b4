#![allow(
    clippy::disallowed_methods,
    reason = "the harness of the black-box tests: it reads its servers (PARLEY_TEST_*) from the environment and waits on plain threads"
)]
//! The black-box test harness: every integration test starts the real `parley` binary.
//!
//! [`TestApp::spawn`] gives each test its own storage (a fresh PostgreSQL database, or a
//! SQLite data dir), starts `parley serve` on a free loopback port with a known bootstrap
//! admin token, and hands back an HTTP client plus helpers for the CLI. Tests talk to the
//! process only through HTTP and the CLI, never through the crates' internals.
//!
//! PostgreSQL and Redis come from `scripts/test.sh`, which exports `PARLEY_TEST_PG_URL`
//! and `PARLEY_TEST_REDIS_URL`. The binary is `PARLEY_BIN`, or `parley` in the same
//! target dir as the test executable.
//!
//! [`Cluster`] runs distributed mode instead: one `parley api` and two `parley worker`
//! processes on PostgreSQL and a Redis database of their own; it derefs to the api's
//! [`TestApp`], so the same helpers work on it. [`turns`] holds the helpers of streaming
//! tests (the mock LLM as provider, sending messages, following feeds, protocol checks);
//! [`typed`] the same requests through the typed client.
//!
//! [`client`] is a typed client of the API, generated from `openapi/openapi.json` at build
//! time; [`TestApp::admin_client`] and [`TestApp::client_as`] give one for an app, and
//! [`ApiResult`] / [`problem`] assert on what its requests return. Raw requests
//! ([`TestApp::request`] and friends) remain for input no schema can express.
//!
//! [`both_backends!`] writes one test twice, once per database:
//!
//! ```ignore
//! both_backends!(healthz, |app| async move {
//!     app.get("/healthz", None).await.assert_status(200);
//! });
//! // a test that spawns its own app gets the backend instead:
//! both_backends!(readyz_with_redis, |backend: Backend| async move {
//!     let app = TestApp::spawn_with_env(backend, &[("PARLEY_REDIS_URL", &test_redis_url())]).await;
//! });
//! ```

mod app;
mod backend;
pub mod client;
mod client_ext;
mod cluster;
mod http;
pub mod metrics;
pub mod otlp;
mod server;
mod sse;
pub mod turns;
pub mod typed;
pub mod webhook;

/// Options for a pool of the tests' own on a database: no query log, and no reaper task
/// (sqlx 0.9.0's can spin a runtime thread for good, sqlx#3645: it once left a test
/// process hung at 100 % CPU as its runtime shut down).
pub fn connect_options(url: impl Into<String>) -> sea_orm::ConnectOptions {
    let mut options = sea_orm::ConnectOptions::new(url.into());
    options
        .sqlx_logging(false)
        .idle_timeout(None)
        .max_lifetime(None);
    options
}

pub use app::TestApp;
pub use backend::{Backend, test_redis_cluster_url, test_redis_url};
pub use client_ext::{ApiResponse, ApiResult, all_pages, problem};
pub use cluster::{CLUSTER_WORKERS, Cluster, WORKER_CONCURRENCY, fresh_redis_database};
pub use http::{TestResponse, client as http_client};
pub use server::{mcp_test_bin, parley_bin};
pub use sse::{SseEvent, SseReader};

use std::future::Future;
use std::time::Duration;

/// The most one test may take, spawns and restarts included.
pub const TEST_TIMEOUT: Duration = Duration::from_secs(180);

/// Runs one test body on `backend` under [`TEST_TIMEOUT`]; used by [`both_backends!`].
pub async fn run_test<F, Fut>(backend: Backend, test: F)
where
    F: FnOnce(Backend) -> Fut,
    Fut: Future<Output = ()>,
{
    if tokio::time::timeout(TEST_TIMEOUT, test(backend))
        .await
        .is_err()
    {
        panic!("the test did not finish within {TEST_TIMEOUT:?} on {backend:?}");
    }
}

/// Defines a module `name` with two tests, `name::postgres` and `name::sqlite`.
///
/// `|app| async move { … }` binds a default [`TestApp`] on that backend;
/// `|backend: Backend| async move { … }` binds the [`Backend`] so the body can spawn its
/// own app (extra env, several apps). The module glob-imports its parent, so the body
/// sees the same names as the code around the macro call.
#[macro_export]
macro_rules! both_backends {
    ($name:ident, |$backend:ident : Backend| $body:expr) => {
        mod $name {
            #[allow(
                unused_imports,
                reason = "a test body need not use what its module imports"
            )]
            use super::*;

            #[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn postgres() {
                $crate::run_test($crate::Backend::Postgres, |$backend: $crate::Backend| $body)
                    .await;
            }

            #[::tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn sqlite() {
                $crate::run_test($crate::Backend::Sqlite, |$backend: $crate::Backend| $body).await;
            }
        }
    };
    ($name:ident, |$app:ident| $body:expr) => {
        $crate::both_backends!($name, |backend: Backend| async move {
            let $app = $crate::TestApp::spawn(backend).await;
            ($body).await
        });
    };
}
