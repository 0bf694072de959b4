//! `database.read_url` (#17 item 4): a streaming replica of the PostgreSQL primary,
//! started by `scripts/test.sh` (`PARLEY_TEST_PG_REPLICA_URL`). The reads that may lag
//! go there — message lists, admin metrics — and a turn's context is assembled from the
//! primary. The test proves which server answered by pausing the replica's replay: what
//! the primary wrote since is missing from the lists until the replay resumes, while
//! the next turn's context already holds it.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, Backend, TestApp, run_test, typed};
use sea_orm::{ConnectionTrait, Database, DatabaseConnection};

use crate::fixtures::api;

/// The replica's URL of the app's database (same name, the replica's host and port).
fn replica_of(primary: &str) -> String {
    #[allow(
        clippy::disallowed_methods,
        reason = "a test reads its servers (PARLEY_TEST_*) from the environment"
    )]
    let server = std::env::var("PARLEY_TEST_PG_REPLICA_URL")
        .expect("PARLEY_TEST_PG_REPLICA_URL: run the suite with scripts/test.sh");
    let mut url = reqwest::Url::parse(&server).expect("a replica URL");
    let primary = reqwest::Url::parse(primary).expect("a database URL");
    url.set_path(primary.path());
    url.into()
}

/// A connection to the replica's server (its `postgres` database), to steer its replay.
async fn replica_server() -> DatabaseConnection {
    #[allow(
        clippy::disallowed_methods,
        reason = "a test reads its servers (PARLEY_TEST_*) from the environment"
    )]
    let server = std::env::var("PARLEY_TEST_PG_REPLICA_URL").expect("PARLEY_TEST_PG_REPLICA_URL");
    Database::connect(parley_tests::connect_options(&server))
        .await
        .expect("connecting to the replica")
}

/// Waits until `check` holds, for up to 20 s.
async fn eventually<F, Fut>(what: &str, check: F)
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let started = Instant::now();
    while !check().await {
        assert!(started.elapsed() < Duration::from_secs(20), "{what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_and_metrics_read_the_replica_and_a_turn_reads_the_primary() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "");
        let mut app = TestApp::unstarted(
            Backend::Postgres,
            &[("PARLEY_CONFIG", &config_path(&config))],
        )
        .await;
        let replica = replica_of(app.database_url().expect("a PostgreSQL app"));
        // The database the primary just created reaches the replica with the WAL.
        eventually("the app's database on the replica", || async {
            Database::connect(parley_tests::connect_options(&replica))
                .await
                .is_ok()
        })
        .await;
        app.set_env("PARLEY_DATABASE__READ_URL", &replica);
        app.start().await;

        let student = api::student_with_tool(&app, "replica@example.com").await;
        let client = app.client_as(&student.token);
        let admin = app.admin_client();
        let session = api::session(&client, student.tool.id).await;
        typed::send_message(&client, session.id, "first")
            .await
            .assert_status(201);
        eventually("the replica shows the first exchange", || async {
            typed::messages(&client, session.id).await.len() == 2
        })
        .await;
        let calls = async || {
            admin
                .admin_usage_calls()
                .send()
                .await
                .assert_status(200)
                .into_inner()
                .items
                .len()
        };
        eventually("the replica shows the first call", || async {
            calls().await == 1
        })
        .await;

        let server = replica_server().await;
        server
            .execute_unprepared("SELECT pg_wal_replay_pause()")
            .await
            .expect("pausing the replay");
        let resume = async || {
            server
                .execute_unprepared("SELECT pg_wal_replay_resume()")
                .await
                .expect("resuming the replay");
        };

        let second = typed::send_message(&client, session.id, "second")
            .await
            .assert_status(201);
        assert_eq!(second.payload.message, "Echo: second");
        // The turn's context came from the primary: it holds the first exchange.
        let request = mock.requests().pop().expect("the mock was called");
        let contents: Vec<&str> = request
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert!(
            contents.contains(&"first") && contents.contains(&"Echo: first"),
            "the context holds the first exchange: {contents:?}"
        );
        // The list and the metrics come from the paused replica: not yet the second.
        let listed = typed::messages(&client, session.id).await;
        let paused = (listed.len(), calls().await);
        resume().await;
        assert_eq!(
            paused,
            (2, 1),
            "read from the replica while its replay was paused"
        );

        eventually("the replica shows the second exchange", || async {
            typed::messages(&client, session.id).await.len() == 4
        })
        .await;
        assert_eq!(calls().await, 2);
    })
    .await;
}
