//! What docs/operations.md tells operators to do, done:
//!
//! * the upgrade drill — a rolling restart of every worker and of the api, as
//!   Kubernetes does it for a new release (a new process up before the old one is told
//!   to stop; the old one drains, hands back what it could not finish, and exits),
//!   while turns stream: no accepted turn is lost and none is answered twice (PostgreSQL
//!   and Redis: the deployment that restarts processes one by one; `parley serve`
//!   restarts as a whole, `restart.rs`);
//! * backup and restore of an embedded deployment (`parley backup`) while it runs.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{MessageRole, PromptState};
use parley_tests::turns::{config_path, mock_provider_config_with, mock_tokens};
use parley_tests::{ApiResult, Backend, Cluster, TestApp, run_test, typed};
use uuid::Uuid;

use crate::fixtures::api;

/// Tokens of each answer, 50 ms apart: turns of about two seconds, so every restart
/// below lands in the middle of some.
const TOKENS: usize = 40;
/// The most the whole drill may take to settle after its last restart.
const SETTLE: Duration = Duration::from_secs(60);

/// One student's session and the turns sent in it.
struct Conversation {
    session_id: Uuid,
    prompts: Vec<Uuid>,
}

/// Sends the next turn in every conversation, once its last turn has completed.
async fn send_round(client: &Client, content: &str, conversations: &mut [Conversation]) {
    for c in conversations.iter_mut() {
        if let Some(last) = c.prompts.last() {
            typed::wait_for_prompt_state(client, *last, PromptState::Completed, SETTLE).await;
        }
        let accepted = typed::send_in_background(client, c.session_id, content).await;
        c.prompts.push(accepted.prompt_id);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rolling_restart_of_workers_and_api_loses_no_turn_and_answers_none_twice() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config_with(
            &mock.base_url(),
            "first_token_timeout_ms = 60000",
            "stall_timeout_ms = 5000\nmax_attempts = 3\ndrain_s = 1",
        );
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let student = api::student_with_tool(&cluster, "rolling@example.com").await;
        let client = cluster.client_as(&student.token);
        let mut conversations = Vec::new();
        for _ in 0..4 {
            let session = api::session(&client, student.tool.id).await;
            conversations.push(Conversation {
                session_id: session.id,
                prompts: Vec::new(),
            });
        }
        let content = format!("[[mock tokens={TOKENS} token_delay_ms=50]] keep going");
        let started = Instant::now();

        // The workers, one at a time: the new one first, then the old one stops.
        send_round(
            &cluster.client_as(&student.token),
            &content,
            &mut conversations,
        )
        .await;
        tokio::time::sleep(Duration::from_millis(700)).await;
        for old in cluster.worker_pids() {
            cluster.start_worker().await;
            let status = cluster.terminate_worker(old, Duration::from_secs(20)).await;
            assert!(
                status.is_some_and(|s| s.success()),
                "worker {old}: {status:?}"
            );
            send_round(
                &cluster.client_as(&student.token),
                &content,
                &mut conversations,
            )
            .await;
            tokio::time::sleep(Duration::from_millis(700)).await;
        }

        // The api: its feeds end with `reconnect`, the turns go on in the workers.
        let status = cluster.terminate(Duration::from_secs(20)).await;
        assert!(status.is_some_and(|s| s.success()), "the api: {status:?}");
        cluster.start().await;
        send_round(
            &cluster.client_as(&student.token),
            &content,
            &mut conversations,
        )
        .await;

        // Every accepted turn completes, once, with its whole answer.
        let client = cluster.client_as(&student.token);
        let mut attempts = Vec::new();
        for c in &conversations {
            for prompt in &c.prompts {
                let done =
                    typed::wait_for_prompt_state(&client, *prompt, PromptState::Completed, SETTLE)
                        .await;
                attempts.push(done.attempt);
            }
            let messages = typed::messages(&client, c.session_id).await;
            let answers: Vec<_> = messages
                .iter()
                .filter(|m| m.role == MessageRole::Assistant)
                .collect();
            assert_eq!(
                answers.len(),
                c.prompts.len(),
                "one answer per turn: {messages:?}"
            );
            for answer in answers {
                assert!(answer.is_complete, "{answer:?}");
                assert_eq!(answer.content, mock_tokens(TOKENS), "{answer:?}");
            }
        }
        let turns = attempts.len();
        let retried = attempts.iter().filter(|a| **a > 1).count();
        eprintln!(
            "rolling restart of 2 workers and the api: {turns} turns, all completed once; \
             {retried} were handed to another worker (attempt > 1); {:?} in all",
            started.elapsed()
        );
        assert_eq!(turns, conversations.len() * 4);
    })
    .await;
}

/// `parley backup` copies a running embedded deployment; started on the copy, Parley
/// has what was there at the backup (not what came after), and runs turns.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_backup_of_a_running_embedded_deployment_restores_what_it_held() {
    run_test(Backend::Sqlite, |_| async {
        let mut app = TestApp::spawn(Backend::Sqlite).await;
        let student = api::student_with_tool(&app, "backup@example.com").await;
        let client = app.client_as(&student.token);
        let kept = api::session(&client, student.tool.id).await;
        typed::send_message(&client, kept.id, "before the backup")
            .await
            .assert_status(201);

        let out = app.root_dir().join("backup-1");
        let printed = app
            .cli_ok(&["backup", "--out", out.to_str().expect("a UTF-8 path")])
            .await;
        let files: Vec<&str> = printed.lines().collect();
        assert_eq!(files.len(), 2, "the database and the queue: {printed}");
        assert!(
            files[0].ends_with("parley.db") && files[1].ends_with("queue.db"),
            "{printed}"
        );
        // Never over an earlier copy.
        let again = app
            .cli(&["backup", "--out", out.to_str().expect("a UTF-8 path")])
            .await;
        assert!(!again.status.success(), "{again:?}");
        assert!(
            String::from_utf8_lossy(&again.stderr).contains("exists already"),
            "{again:?}"
        );

        let later = api::session(&client, student.tool.id).await;
        typed::send_message(&client, later.id, "after the backup")
            .await
            .assert_status(201);

        // Restore: stop, put the copy in place of the data directory, start.
        app.stop().await;
        let data = app.data_dir();
        std::fs::remove_dir_all(&data).expect("removing the data directory");
        std::fs::create_dir_all(&data).expect("creating the data directory");
        for name in ["parley.db", "queue.db"] {
            std::fs::copy(out.join(name), data.join(name)).expect("copying the backup");
        }
        app.start().await;
        let client = app.client_as(&student.token);
        let messages = typed::messages(&client, kept.id).await;
        assert_eq!(
            messages.len(),
            2,
            "the turn before the backup: {messages:?}"
        );
        assert_eq!(messages[0].content, "before the backup");
        // The session made after the backup is not in it.
        let missing = client.get_session().id(later.id).send().await;
        assert_eq!(missing.assert_problem(404), "not_found");
        // The restored deployment runs turns.
        typed::send_message(&client, kept.id, "after the restore")
            .await
            .assert_status(201);
        assert_eq!(typed::messages(&client, kept.id).await.len(), 4);
    })
    .await;
}

/// A PostgreSQL deployment is backed up with PostgreSQL's tools: the command says so.
#[tokio::test]
async fn backup_of_a_postgresql_deployment_points_to_pg_dump() {
    run_test(Backend::Postgres, |_| async {
        let app = TestApp::spawn(Backend::Postgres).await;
        let out = app.root_dir().join("backup");
        let output = app
            .cli(&["backup", "--out", out.to_str().expect("a UTF-8 path")])
            .await;
        assert!(!output.status.success(), "{output:?}");
        assert!(
            String::from_utf8_lossy(&output.stderr).contains("pg_dump"),
            "{output:?}"
        );
        assert!(!out.exists(), "nothing written");
    })
    .await;
}
