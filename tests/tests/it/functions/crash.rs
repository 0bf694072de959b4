//! Exactly-once effects across a worker's death (distributed mode: one api, two
//! workers, PostgreSQL and Redis): a worker killed after a `createTodo` call and before
//! the next model call leaves the turn to the other worker, which shows the finished call
//! again and feeds its stored result to the model instead of running it twice.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::ToolDefinition;
use parley_tests::turns::{config_path, mock_provider_config, text_of};
use parley_tests::{ApiResult, Backend, Cluster, run_test, typed};

use super::{ALL, completed, of_type};
use crate::fixtures::api;

/// The most a turn whose worker died may take to complete elsewhere (see
/// `distributed.rs`: the survivors' reaper runs every 30 s, the queue re-delivers after
/// three missed 10 s heartbeats).
const TAKEOVER: Duration = Duration::from_secs(75);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_is_not_run_twice_when_its_worker_dies_before_the_next_model_call() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(
            &mock.base_url(),
            "stall_timeout_ms = 20000\nmax_attempts = 2\nlease_s = 3",
        );
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let admin = cluster.admin_client();
        let student = api::student_with_tool(&cluster, "once@example.com").await;
        let definition = ToolDefinition {
            functions: Some(ALL.iter().map(|f| (*f).to_owned()).collect()),
            ..api::definition("Keep track of things.")
        };
        let tool = api::tool_with(&admin, student.group.id, "Keeper", definition).await;
        let client = cluster.client_as(&student.token);
        let session = api::session(&client, tool.id).await;

        // Every model call of this turn waits 4 s for its first token: the follow-up
        // after the call is where the worker dies.
        let content = r#"[[mock first_token_delay_ms=4000 tool_call='createTodo:{"title": "once"}']] note it"#;
        let accepted = typed::send_in_background(&client, session.id, content).await;
        let prompt = accepted.prompt_id.to_string();
        let mut feed = cluster.prompt_events(&student.token, &prompt, None).await;
        let mut seen = Vec::new();
        while !seen.iter().any(|e: &parley_tests::SseEvent| e.event == "tool_complete") {
            seen.push(feed.next(super::WAIT).await.expect("the feed ended early"));
        }
        let deadline = Instant::now() + super::WAIT;
        let victim = loop {
            let waiting = cluster.workers_connected_to(mock.addr());
            if let [pid] = waiting[..] {
                break pid;
            }
            assert!(Instant::now() < deadline, "no worker made the follow-up call");
            tokio::time::sleep(Duration::from_millis(50)).await;
        };
        cluster.kill_worker(victim).await;

        let rest = tokio::time::timeout(TAKEOVER, feed.until_terminal(TAKEOVER))
            .await
            .expect("the turn completed on the other worker");
        let retry = rest.iter().rposition(|e| e.event == "retry");
        let rest = &rest[retry.expect("a retry event") + 1..];
        // The new attempt (readers drop what came before `retry`) shows the finished
        // call again, with the stored result.
        let again = of_type(rest, "tool_complete");
        assert_eq!(again.len(), 1, "{rest:?}");
        assert_eq!(again[0]["output"], of_type(&seen, "tool_complete")[0]["output"]);
        let end = completed(rest);
        assert_eq!(end["payload"]["tool_history"].as_array().map(Vec::len), Some(1));
        let text = text_of(rest);
        assert!(text.starts_with("[[tool:0]]Tool result: "), "the transcript is whole: {text}");

        let todos = client.list_todos().send().await.assert_status(200);
        assert_eq!(todos.items.len(), 1, "createTodo ran once: {:?}", todos.items);
        let asked: Vec<usize> = mock
            .requests()
            .iter()
            .map(|r| r.tool_results().len())
            .collect();
        assert_eq!(
            asked.iter().filter(|n| **n == 0).count(),
            1,
            "the model was asked without the result only once: {asked:?}"
        );
    })
    .await;
}
