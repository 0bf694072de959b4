//! What a round that waits costs PostgreSQL (#46): a call of the caller's own function
//! (`client_functions`, answered with `POST …/calls/{id}/result`) against a call that
//! waits for approval (answered with `…/approve`), each round from the message to the
//! turn's end, counted by the server (`pg_stat_statements`). Both suspend the turn and
//! wake it the same way, so a client call must cost no more statements and no more
//! transactions than an approval (whose function also runs and writes a todo).

use std::time::Instant;

use parley_tests::client::types::ToolDefinition;
use parley_tests::{Backend, Cluster, run_test};
use serde_json::{Value, json};
use uuid::Uuid;

use super::cost::{Ran, count_statements, statement_calls};
use super::{LEASE, WAIT, api, distributed_with, to_terminal, worker_settings};

const ROUNDS: i64 = 3;

/// The one statement of the test's own: waiting for the worker to let go.
const LET_GO: &str = "SELECT COUNT(*) FROM prompts WHERE id";

/// Sends `body`, reads the feed up to `request` (the call's id), waits until the
/// worker let go of the prompt, answers with `answer` (a path under the call and a
/// body), and reads the feed to the turn's end.
async fn round(
    cluster: &Cluster,
    token: &str,
    session: Uuid,
    body: Value,
    request: &str,
    answer: (&str, Value),
) {
    let path = format!("/v1/sessions/{session}/messages?background=true");
    let accepted = cluster.post_json(&path, Some(token), &body).await;
    accepted.assert_status(202);
    let prompt = accepted.body["prompt_id"]
        .as_str()
        .expect("a prompt")
        .to_owned();
    let mut feed = cluster.prompt_events(token, &prompt, None).await;
    let call = loop {
        let event = feed.next(WAIT).await.expect("the feed goes on");
        if event.event == request {
            break event.data["call_id"].as_str().expect("a call").to_owned();
        }
    };
    let released = format!(
        "{LET_GO} = {} AND lease_owner IS NULL AND lease_expires_at IS NULL",
        cluster.sql_uuid(&prompt)
    );
    let deadline = Instant::now() + WAIT;
    while cluster.count(&released).await != 1 {
        assert!(Instant::now() < deadline, "the prompt was never let go");
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    let (verb, body) = answer;
    let path = format!("/v1/prompts/{prompt}/calls/{call}/{verb}");
    cluster
        .post_json(&path, Some(token), &body)
        .await
        .assert_status(200);
    let events = to_terminal(&mut feed, WAIT, request).await;
    assert_eq!(events.last().map(|e| e.event.as_str()), Some("complete"));
}

/// Statements (data only) and transactions of `ROUNDS` rounds run by `run`, after one
/// round to warm the worker.
async fn measure<F, Fut>(cluster: &Cluster, run: F) -> (i64, i64, String)
where
    F: Fn(i64) -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    run(0).await;
    let before = statement_calls(cluster).await;
    for n in 1..=ROUNDS {
        run(n).await;
    }
    let after = statement_calls(cluster).await;
    let ran = Ran::between(&before, &after);
    let statements = ran.turn_statements() - ran.calls_of(LET_GO)
        + ran.calls_of(r#"SELECT "users"."id", "users"."email""#);
    (statements, ran.calls_of("BEGIN"), ran.listing())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_call_round_costs_no_more_than_an_approval_round() {
    run_test(Backend::Postgres, |_| async {
        let mut d = distributed_with(&worker_settings(LEASE)).await;
        let second = d.cluster.worker_pids()[1];
        d.cluster.kill_worker(second).await;
        let admin = d.cluster.admin_client();
        let student = api::student_with_tool(&d.cluster, "waits@example.com").await;
        let definition = ToolDefinition {
            functions: Some(vec!["createTodo".to_owned()]),
            approval_required: Some(vec!["createTodo".into()]),
            ..api::definition("Keep track of things.")
        };
        let tool = api::tool_with(&admin, student.group.id, "Keeper", definition).await;
        let client = d.cluster.client_as(&student.token);
        let (approving, own) = (
            api::session(&client, tool.id).await.id,
            api::session(&client, tool.id).await.id,
        );
        count_statements(&d.cluster).await;
        let cluster = &d.cluster;
        let token = student.token.as_str();

        let approval = measure(cluster, |n| async move {
            let content =
                format!(r#"[[mock tool_call='createTodo:{{"title": "t{n}"}}']] remind me"#);
            let body = json!({"content": content});
            round(
                cluster,
                token,
                approving,
                body,
                "approval_requested",
                ("approve", json!({})),
            )
            .await;
        })
        .await;
        let client_call = measure(cluster, |n| async move {
            let content = format!(r#"[[mock tool_call='lookup:{{"word": "w{n}"}}']] what is it"#);
            let body = json!({
                "content": content,
                "client_functions": [{"name": "lookup", "parameters": {"type": "object"}}],
            });
            let answer = ("result", json!({"text": "a word"}));
            round(cluster, token, own, body, "client_call_requested", answer).await;
        })
        .await;
        eprintln!(
            "approval round: {} statements, {} transactions per round\n{}\n\
             client-call round: {} statements, {} transactions per round\n{}",
            approval.0 as f64 / ROUNDS as f64,
            approval.1 as f64 / ROUNDS as f64,
            approval.2,
            client_call.0 as f64 / ROUNDS as f64,
            client_call.1 as f64 / ROUNDS as f64,
            client_call.2,
        );
        assert!(
            client_call.0 <= approval.0,
            "a client call round ran {} statements, an approval round {}:\n{}",
            client_call.0,
            approval.0,
            client_call.2
        );
        assert!(
            client_call.1 <= approval.1,
            "a client call round ran {} transactions, an approval round {}:\n{}",
            client_call.1,
            approval.1,
            client_call.2
        );
    })
    .await;
}
