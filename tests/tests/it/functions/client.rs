//! Functions of the caller's own on Parley's turn API (#46 item 2): a message offers
//! `client_functions`; the model's call of one is streamed as `client_call_requested`,
//! the turn suspends (`waiting_for_tools`) with the call `awaiting_client`, and resumes
//! once the caller posts the result (`POST /v1/prompts/{id}/calls/{call}/result`) — the
//! model then reads it. Refusals (another user's call, a second answer, a result that
//! breaks `returns`, arguments that break `parameters`, a function that clashes or is
//! malformed), the expiry and a cancel while waiting are each checked, on both backends;
//! and a wait outlives every worker (SIGKILL) on PostgreSQL.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{Backend, Cluster, both_backends, run_test};
use serde_json::{Value, json};
use uuid::Uuid;

use super::approvals::{
    Waiting, approve, kill_every_worker_once_let_go, mock_calls, prompt_state, tool_results,
    until_request,
};
use super::*;

/// A message whose model call asks for `lookup` with `args` (JSON text).
fn asking(args: &str) -> String {
    format!("[[mock tool_call='lookup:{args}']] what is gato")
}

/// The caller's `lookup` function, declaring its result when `returns` is given.
fn lookup(returns: Option<Value>) -> Value {
    let mut function = json!({
        "name": "lookup",
        "description": "Looks a word up in the caller's dictionary.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
        },
    });
    if let Some(returns) = returns {
        function["returns"] = returns;
    }
    function
}

/// `POST /v1/sessions/{id}/messages?background=true` with `client_functions`.
async fn offer(agent: &Agent, content: &str, functions: Value) -> parley_tests::TestResponse {
    let path = format!("/v1/sessions/{}/messages?background=true", agent.session_id);
    let body = json!({"content": content, "client_functions": functions});
    agent.app.post_json(&path, Some(&agent.token), &body).await
}

/// Offers `functions` with a message asking for `lookup` with `args`, and reads its feed
/// up to the call's request.
async fn until_asked(agent: &Agent, args: &str, functions: Value) -> Waiting {
    let accepted = offer(agent, &asking(args), functions).await;
    accepted.assert_status(202);
    let prompt_id: Uuid = accepted.body["prompt_id"]
        .as_str()
        .and_then(|id| id.parse().ok())
        .expect("the accepted prompt");
    until_request(agent, prompt_id, "client_call_requested").await
}

/// `POST /v1/prompts/{prompt}/calls/{call}/result` as the holder of `token`.
async fn post_result(
    agent: &Agent,
    token: &str,
    waiting: &Waiting,
    body: Value,
) -> parley_tests::TestResponse {
    let path = format!(
        "/v1/prompts/{}/calls/{}/result",
        waiting.prompt_id,
        waiting.call_id()
    );
    agent.app.post_json(&path, Some(token), &body).await
}

async fn waiting_agent(backend: Backend, worker: &'static str) -> Agent {
    agent(
        backend,
        Setup {
            worker,
            ..Setup::default()
        },
    )
    .await
}

both_backends!(
    a_client_call_waits_for_the_callers_result_and_the_model_reads_it,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "approval_timeout_s = 600").await;
        let mut waiting = until_asked(&agent, r#"{"word": "gato"}"#, json!([lookup(None)])).await;
        assert_eq!(waiting.request["tool"], "lookup");
        assert_eq!(waiting.request["input"], json!({"word": "gato"}));
        assert!(
            waiting.request["tool_use_id"].is_string(),
            "{:?}",
            waiting.request
        );
        assert!(waiting.request["expires_at"].is_string());
        let states: Vec<&str> = of_type(&waiting.seen, "prompt_state")
            .iter()
            .filter_map(|s| s["state"].as_str())
            .collect();
        assert_eq!(states, ["in_progress", "waiting_for_tools"]);
        assert_eq!(
            prompt_state(&agent, waiting.prompt_id).await,
            "waiting_for_tools"
        );
        // The model was offered the caller's function beside the tool's own.
        let offered = agent.mock.requests()[0].tool_names();
        assert!(
            offered.iter().any(|n| n == "lookup") && offered.iter().any(|n| n == "createTodo"),
            "{offered:?}"
        );
        // Not an approval: not listed, not approvable.
        let listed = agent
            .client
            .list_approvals()
            .send()
            .await
            .assert_status(200);
        assert!(listed.items.is_empty(), "{:?}", listed.items);
        let code = approve(&agent.client, waiting.prompt_id, waiting.call_id(), None)
            .await
            .assert_problem(409);
        assert_eq!(code, "not_awaiting_approval");

        // Another user's call is not found; a body that is not one result is refused.
        let (_, other) = agent.app.create_user("other@example.com", "student").await;
        let refused = post_result(&agent, &other, &waiting, json!({"text": "cat"})).await;
        assert_eq!(refused.assert_problem(404), "not_found");
        for body in [
            json!({}),
            json!({"text": "cat", "error": "no"}),
            json!({"result": 1}),
        ] {
            let refused = post_result(&agent, &agent.token, &waiting, body.clone()).await;
            assert_eq!(refused.assert_problem(422), "validation_failed", "{body}");
        }
        assert_eq!(mock_calls(&agent), 1, "nothing resumed the turn");

        let answered = post_result(
            &agent,
            &agent.token,
            &waiting,
            json!({"output": {"meaning": "cat", "language": "es"}}),
        )
        .await;
        answered.assert_status(200);
        assert_eq!(answered.body["state"], "success", "{answered}");
        assert_eq!(answered.body["function"], "lookup");
        assert_eq!(
            answered.body["result"],
            json!({"meaning": "cat", "language": "es"})
        );
        assert!(answered.body["decided_by"].is_string());
        let again = post_result(&agent, &agent.token, &waiting, json!({"text": "dog"})).await;
        assert_eq!(again.assert_problem(409), "not_awaiting_result");

        let rest = waiting.rest().await;
        let end = completed(&rest);
        let history = &end["payload"]["tool_history"][0];
        assert_eq!(history["tool_name"], "lookup", "{end}");
        assert_eq!(
            history["output"],
            json!({"meaning": "cat", "language": "es"})
        );
        assert_eq!(mock_calls(&agent), 2, "asked once, then given the result");
        let results = tool_results(&agent.mock);
        assert!(
            results.len() == 1 && results[0].contains("cat") && results[0].contains("es"),
            "{results:?}"
        );
        assert_eq!(prompt_state(&agent, waiting.prompt_id).await, "completed");
        // The session takes the next message.
        completed(&agent.turn("thanks").await);
    }
);

both_backends!(
    a_result_that_breaks_the_declared_returns_is_refused_and_the_call_keeps_waiting,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "approval_timeout_s = 600").await;
        let returns = json!({
            "type": "object",
            "properties": {"meaning": {"type": "string"}},
            "required": ["meaning"],
        });
        let mut waiting = until_asked(
            &agent,
            r#"{"word": "gato"}"#,
            json!([lookup(Some(returns))]),
        )
        .await;
        let text = post_result(&agent, &agent.token, &waiting, json!({"text": "cat"})).await;
        assert_eq!(text.assert_problem(422), "invalid_call_result");
        // One character over the text's limit, each escaped in JSON (the largest body such
        // a text makes): refused by name, within the body limit (not a 413).
        let long = "\u{1}".repeat(128 * 1024 + 1);
        let too_long = post_result(&agent, &agent.token, &waiting, json!({"text": long})).await;
        assert_eq!(
            too_long.assert_problem(422),
            "validation_failed",
            "{too_long}"
        );
        let misfit = post_result(
            &agent,
            &agent.token,
            &waiting,
            json!({"output": {"meaning": 5}}),
        )
        .await;
        assert_eq!(misfit.assert_problem(422), "invalid_call_result");
        assert!(misfit.text.contains("meaning"), "{misfit}");
        assert_eq!(
            prompt_state(&agent, waiting.prompt_id).await,
            "waiting_for_tools"
        );
        // A failure is always taken, and the model is told it.
        let failed = post_result(
            &agent,
            &agent.token,
            &waiting,
            json!({"error": "the dictionary is offline"}),
        )
        .await;
        failed.assert_status(200);
        assert_eq!(failed.body["state"], "error", "{failed}");
        assert_eq!(failed.body["error"], "the dictionary is offline");
        completed(&waiting.rest().await);
        let results = tool_results(&agent.mock);
        assert!(
            results.len() == 1 && results[0].contains("the dictionary is offline"),
            "{results:?}"
        );
    }
);

both_backends!(
    arguments_that_break_the_parameters_are_told_to_the_model_not_the_caller,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "").await;
        let accepted = offer(&agent, &asking(r#"{"word": 5}"#), json!([lookup(None)])).await;
        accepted.assert_status(202);
        let prompt = accepted.body["prompt_id"].as_str().expect("a prompt");
        let rest = agent
            .app
            .prompt_events(&agent.token, prompt, None)
            .await
            .until_terminal(WAIT)
            .await;
        completed(&rest);
        assert!(
            of_type(&rest, "client_call_requested").is_empty(),
            "{rest:?}"
        );
        let done = of_type(&rest, "tool_complete");
        assert_eq!(done.len(), 1, "{rest:?}");
        assert_eq!(done[0]["state"], "error");
        let results = tool_results(&agent.mock);
        assert!(
            results.len() == 1 && results[0].contains("word"),
            "the model is told what is wrong: {results:?}"
        );
    }
);

both_backends!(
    a_function_that_clashes_or_is_malformed_is_refused_before_anything_is_recorded,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "").await;
        let malformed = [
            json!([{"name": "createTodo"}]),
            json!([{"name": "no spaces"}]),
            json!([lookup(None), lookup(None)]),
            json!([{"name": "lookup", "parameters": {"type": 5}}]),
            json!([{"name": "lookup", "returns": {"type": "nothing"}}]),
        ];
        for functions in malformed {
            let refused = offer(&agent, "hello", functions.clone()).await;
            assert_eq!(
                refused.assert_problem(422),
                "invalid_client_function",
                "{functions}"
            );
        }
        let unknown = offer(
            &agent,
            "hello",
            json!([{"name": "lookup", "run": "rm -rf /"}]),
        )
        .await;
        assert_eq!(unknown.assert_problem(422), "validation_failed");
        assert_eq!(unknown.body["param"], "client_functions[0].run");
        let sql = format!(
            "SELECT COUNT(*) FROM prompts WHERE session_id = {}",
            agent.app.sql_uuid(&agent.session_id.to_string())
        );
        assert_eq!(agent.app.count(&sql).await, 0, "nothing was recorded");
        assert_eq!(mock_calls(&agent), 0);
    }
);

both_backends!(
    a_call_no_one_answers_expires_and_the_model_is_told,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "approval_timeout_s = 1\ntimer_check_ms = 100").await;
        let mut waiting = until_asked(&agent, r#"{"word": "gato"}"#, json!([lookup(None)])).await;
        let expires: chrono::DateTime<chrono::Utc> =
            serde_json::from_value(waiting.request["expires_at"].clone()).expect("expires_at");
        let rest = waiting.rest().await;
        assert!(chrono::Utc::now() >= expires, "not ended before it expired");
        completed(&rest);
        let results = tool_results(&agent.mock);
        assert!(results[0].contains("did not answer"), "{results:?}");
        let late = post_result(&agent, &agent.token, &waiting, json!({"text": "cat"})).await;
        assert_eq!(late.assert_problem(409), "not_awaiting_result");
    }
);

both_backends!(
    a_turn_cancelled_while_its_client_call_waits_ends_and_takes_no_result,
    |backend: Backend| async move {
        let agent = waiting_agent(backend, "").await;
        let mut waiting = until_asked(&agent, r#"{"word": "gato"}"#, json!([lookup(None)])).await;
        agent
            .client
            .cancel_prompt()
            .id(waiting.prompt_id)
            .send()
            .await
            .expect("the cancel is accepted");
        let rest = waiting.rest().await;
        assert_eq!(
            rest.last().map(|e| e.event.as_str()),
            Some("cancelled"),
            "{rest:?}"
        );
        let late = post_result(&agent, &agent.token, &waiting, json!({"text": "cat"})).await;
        assert_eq!(late.assert_problem(409), "not_awaiting_result");
        assert_eq!(mock_calls(&agent), 1);
        completed(&agent.turn("hello again").await);
    }
);

/// The wait holds no worker: every worker dies (SIGKILL) while the call waits, new ones
/// start, and the posted result resumes the turn at once (a lease of 30 s would have to
/// lapse for a held prompt) with the model asked for the call once.
#[tokio::test]
async fn a_client_call_survives_the_death_of_every_worker_and_is_answered_once() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "lease_s = 30");
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let student = crate::fixtures::api::student_with_tool(&cluster, "own@example.com").await;
        let client = cluster.client_as(&student.token);
        let session = crate::fixtures::api::session(&client, student.tool.id).await;
        let path = format!("/v1/sessions/{}/messages?background=true", session.id);
        let body = json!({
            "content": asking(r#"{"word": "gato"}"#),
            "client_functions": [lookup(None)],
        });
        let accepted = cluster.post_json(&path, Some(&student.token), &body).await;
        accepted.assert_status(202);
        let prompt = accepted.body["prompt_id"]
            .as_str()
            .expect("a prompt")
            .to_owned();
        let mut feed = cluster.prompt_events(&student.token, &prompt, None).await;
        let request = loop {
            let event = feed.next(WAIT).await.expect("the feed goes on");
            if event.event == "client_call_requested" {
                break event.data;
            }
        };
        kill_every_worker_once_let_go(&mut cluster, &prompt).await;
        let answered_at = Instant::now();
        let result = format!(
            "/v1/prompts/{prompt}/calls/{}/result",
            request["call_id"].as_str().expect("the call")
        );
        let answer = json!({"output": {"meaning": "cat"}});
        cluster
            .post_json(&result, Some(&student.token), &answer)
            .await
            .assert_status(200);
        let rest = tokio::time::timeout(Duration::from_secs(25), feed.until_terminal(WAIT))
            .await
            .expect("the turn resumed at once");
        assert!(answered_at.elapsed() < Duration::from_secs(25));
        let end = completed(&rest);
        assert_eq!(
            end["payload"]["tool_history"][0]["output"],
            answer["output"]
        );
        assert_eq!(
            mock.requests().len(),
            2,
            "the model was asked for the call once"
        );
    })
    .await;
}
