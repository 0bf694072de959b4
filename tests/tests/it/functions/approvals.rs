//! Calls that wait for approval (#14): a tool whose definition lists `createTodo` under
//! `approval_required`. The model (the mock) asks for the call; the turn suspends with
//! the call `awaiting_approval` and the prompt `waiting_for_tools`; the owner approves
//! (with edited input, from another connection), denies, lets it expire or cancels the
//! turn. Every test counts the side effect: the todos the call creates.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{ApproveCall, DenyCall, ToolDefinition};
use parley_tests::turns::{config_path, mock_provider_config, text_of};
use parley_tests::{ApiResult, Backend, Cluster, SseEvent, SseReader, both_backends, run_test};
use serde_json::{Value, json};
use uuid::Uuid;

use super::*;
use parley_tests::typed;

/// The message whose model call asks for `createTodo`.
const ASKS: &str = r#"[[mock tool_call='createTodo:{"title": "buy milk"}']] remind me"#;

/// An agent whose tool needs approval for `createTodo`; `worker` is more of `[worker]`.
async fn approving(backend: Backend, worker: &str) -> Agent {
    agent(
        backend,
        Setup {
            approval_required: &["createTodo"],
            worker,
            ..Setup::default()
        },
    )
    .await
}

/// A turn suspended for an approval or a client's result: its prompt, its feed so far
/// and the request.
pub(super) struct Waiting {
    pub(super) prompt_id: Uuid,
    feed: SseReader,
    pub(super) seen: Vec<SseEvent>,
    /// The request event's data.
    pub(super) request: Value,
}

impl Waiting {
    pub(super) fn call_id(&self) -> Uuid {
        self.request["call_id"]
            .as_str()
            .and_then(|id| id.parse().ok())
            .expect("a call id")
    }

    /// The rest of the feed, to its terminal event.
    pub(super) async fn rest(&mut self) -> Vec<SseEvent> {
        self.feed.until_terminal(WAIT).await
    }
}

/// Sends [`ASKS`] in the background and reads its feed up to `approval_requested`.
async fn until_approval(agent: &Agent) -> Waiting {
    let accepted = typed::send_in_background(&agent.client, agent.session_id, ASKS).await;
    until_request(agent, accepted.prompt_id, "approval_requested").await
}

/// Reads prompt `prompt_id`'s feed up to its first event `kind` (a request the turn
/// waits on).
pub(super) async fn until_request(agent: &Agent, prompt_id: Uuid, kind: &str) -> Waiting {
    let prompt = prompt_id.to_string();
    let mut feed = agent.app.prompt_events(&agent.token, &prompt, None).await;
    let mut seen = Vec::new();
    loop {
        let event = feed
            .next(WAIT)
            .await
            .expect("the feed goes on to the request");
        assert!(
            !matches!(event.event.as_str(), "complete" | "error" | "cancelled"),
            "{seen:?} {event:?}"
        );
        let request = (event.event == kind).then(|| event.data.clone());
        seen.push(event);
        if let Some(request) = request {
            return Waiting {
                prompt_id,
                feed,
                seen,
                request,
            };
        }
    }
}

async fn todos(agent: &Agent) -> Vec<String> {
    let todos = agent.client.list_todos().send().await.assert_status(200);
    todos.items.iter().map(|t| t.title.to_string()).collect()
}

pub(super) async fn prompt_state(agent: &Agent, prompt_id: Uuid) -> String {
    let prompt = agent
        .client
        .get_prompt()
        .id(prompt_id)
        .send()
        .await
        .assert_status(200);
    prompt.state.to_string()
}

/// The `tool` messages of the model's last request.
pub(super) fn tool_results(mock: &MockLlm) -> Vec<String> {
    let requests = mock.requests();
    let last = requests.last().expect("the model was called");
    last.tool_results().iter().map(|r| r.to_string()).collect()
}

both_backends!(
    an_approved_call_runs_once_with_the_edited_input_and_the_model_is_not_asked_again,
    |backend: Backend| async move {
        let agent = approving(backend, "approval_timeout_s = 600").await;
        let mut waiting = until_approval(&agent).await;
        assert_eq!(waiting.request["tool"], "createTodo");
        assert_eq!(waiting.request["input"], json!({"title": "buy milk"}));
        let states: Vec<&str> = of_type(&waiting.seen, "prompt_state")
            .iter()
            .filter_map(|s| s["state"].as_str())
            .collect();
        assert_eq!(states, ["in_progress", "waiting_for_tools"]);
        assert_eq!(of_type(&waiting.seen, "tool_complete").len(), 0);
        // Suspended: nothing ran, the prompt waits, the call is listed.
        assert!(todos(&agent).await.is_empty());
        assert_eq!(
            prompt_state(&agent, waiting.prompt_id).await,
            "waiting_for_tools"
        );
        let listed = agent
            .client
            .list_approvals()
            .send()
            .await
            .assert_status(200);
        assert_eq!(listed.items.len(), 1);
        assert_eq!(listed.items[0].id, waiting.call_id());
        assert_eq!(listed.items[0].state.to_string(), "awaiting_approval");
        assert_eq!(mock_calls(&agent), 1);

        // Someone else cannot decide it; input that does not fit is refused.
        let (_, other) = agent.app.create_user("other@example.com", "student").await;
        let other = agent.app.client_as(&other);
        let code = approve(&other, waiting.prompt_id, waiting.call_id(), None)
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        assert_eq!(
            other
                .list_approvals()
                .send()
                .await
                .assert_status(200)
                .items
                .len(),
            0
        );
        let wrong = json!({"title": 5}).as_object().cloned();
        let code = approve(&agent.client, waiting.prompt_id, waiting.call_id(), wrong)
            .await
            .assert_problem(422);
        assert_eq!(code, "invalid_approval_input");

        // Approved with edited input from another connection.
        let second = agent.app.client_as(&agent.token);
        let edited = json!({"title": "buy oat milk"}).as_object().cloned();
        let approved = approve(&second, waiting.prompt_id, waiting.call_id(), edited)
            .await
            .assert_status(200);
        assert_eq!(approved.state.to_string(), "approved");
        assert_eq!(approved.input, json!({"title": "buy oat milk"}));
        assert_eq!(approved.requested_input, Some(json!({"title": "buy milk"})));
        assert!(approved.decided_at.is_some() && approved.decided_by.is_some());
        let code = approve(&agent.client, waiting.prompt_id, waiting.call_id(), None)
            .await
            .assert_problem(409);
        assert_eq!(code, "not_awaiting_approval");

        let rest = waiting.rest().await;
        let retry = rest
            .iter()
            .rposition(|e| e.event == "retry")
            .expect("a new attempt");
        let resumed = &rest[retry + 1..];
        let done = of_type(resumed, "tool_complete");
        assert_eq!(done.len(), 1, "{resumed:?}");
        assert_eq!(done[0]["state"], "success");
        let end = completed(resumed);
        assert_eq!(
            end["payload"]["tool_history"][0]["input"],
            json!({"title": "buy oat milk"})
        );
        assert!(text_of(resumed).starts_with("[[tool:0]]Tool result: "));
        assert_eq!(
            todos(&agent).await,
            ["buy oat milk"],
            "the call ran once, as approved"
        );
        // The model was asked for the call once, then given its result.
        assert_eq!(mock_calls(&agent), 2);
        let results = tool_results(&agent.mock);
        assert!(
            results.len() == 1 && results[0].contains("todo_id"),
            "{results:?}"
        );
        assert_eq!(prompt_state(&agent, waiting.prompt_id).await, "completed");
        assert!(
            agent
                .client
                .list_approvals()
                .send()
                .await
                .assert_status(200)
                .items
                .is_empty()
        );
    }
);

both_backends!(
    a_denied_call_never_runs_and_the_model_is_told_why,
    |backend: Backend| async move {
        let agent = approving(backend, "").await;
        // The owner's feed hears the request and the decision.
        let response = agent
            .app
            .client
            .get(agent.app.url("/v1/feed"))
            .bearer_auth(&agent.token)
            .send()
            .await
            .expect("the user feed opens");
        let mut user_feed = SseReader::new(response);
        let mut waiting = until_approval(&agent).await;
        let requested = next_on(&mut user_feed, "approval_requested").await;
        assert_eq!(requested["call_id"], waiting.request["call_id"]);
        assert_eq!(requested["function"], "createTodo");
        assert_eq!(requested["input"], json!({"title": "buy milk"}));
        assert_eq!(requested["prompt_id"], waiting.prompt_id.to_string());
        let denied = agent
            .client
            .deny_call()
            .id(waiting.prompt_id)
            .call_id(waiting.call_id())
            .body(DenyCall {
                reason: Some("I already have milk".into()),
            })
            .send()
            .await
            .assert_status(200);
        assert_eq!(denied.state.to_string(), "denied");
        assert_eq!(
            denied.decision_reason.as_deref(),
            Some("I already have milk")
        );
        let resolved = next_on(&mut user_feed, "approval_resolved").await;
        assert_eq!(resolved["call_id"], waiting.request["call_id"]);
        assert_eq!(resolved["approved"], false);
        let rest = waiting.rest().await;
        let done = of_type(&rest, "tool_complete");
        assert_eq!(done.len(), 1, "{rest:?}");
        assert_eq!(done[0]["state"], "denied");
        completed(&rest);
        let results = tool_results(&agent.mock);
        assert!(
            results.len() == 1
                && results[0].contains("denied")
                && results[0].contains("I already have milk"),
            "{results:?}"
        );
        assert!(todos(&agent).await.is_empty(), "a denied call never runs");
        assert_eq!(mock_calls(&agent), 2);
    }
);

both_backends!(
    an_approval_no_one_gives_expires_as_a_denial,
    |backend: Backend| async move {
        let agent = approving(backend, "approval_timeout_s = 1\ntimer_check_ms = 100").await;
        let mut waiting = until_approval(&agent).await;
        let expires: chrono::DateTime<chrono::Utc> =
            serde_json::from_value(waiting.request["expires_at"].clone()).expect("expires_at");
        let rest = waiting.rest().await;
        assert!(
            chrono::Utc::now() >= expires,
            "not denied before it expired"
        );
        let done = of_type(&rest, "tool_complete");
        assert_eq!(done[0]["state"], "denied", "{rest:?}");
        completed(&rest);
        let results = tool_results(&agent.mock);
        assert!(results[0].contains("in time"), "{results:?}");
        assert!(todos(&agent).await.is_empty(), "an expired call never runs");
        let code = approve(&agent.client, waiting.prompt_id, waiting.call_id(), None)
            .await
            .assert_problem(409);
        assert_eq!(code, "not_awaiting_approval");
    }
);

both_backends!(
    a_turn_cancelled_while_it_waits_ends_and_its_call_never_runs,
    |backend: Backend| async move {
        let agent = approving(backend, "").await;
        let mut waiting = until_approval(&agent).await;
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
        assert_eq!(prompt_state(&agent, waiting.prompt_id).await, "canceled");
        let code = approve(&agent.client, waiting.prompt_id, waiting.call_id(), None)
            .await
            .assert_problem(409);
        assert_eq!(code, "not_awaiting_approval");
        assert!(
            todos(&agent).await.is_empty(),
            "a cancelled call never runs"
        );
        assert_eq!(mock_calls(&agent), 1);
        // The session takes the next message.
        let events = agent.turn("hello again").await;
        completed(&events);
    }
);

/// Readers hear `cancelled` only once the session is handed over: the test holds the
/// session's row (PostgreSQL's row lock stops the hand-over's `UPDATE`, not the claim's
/// reads), and no terminal event may come while it does; once it lets go, the end comes
/// and the next message is taken at once.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancel_found_at_the_claim_is_told_after_the_session_is_free() {
    use sea_orm::{ConnectionTrait, TransactionTrait};
    run_test(Backend::Postgres, |backend| async move {
        let agent = approving(backend, "").await;
        let mut waiting = until_approval(&agent).await;
        let db = agent.app.db().await;
        let holding = db.begin().await.expect("a transaction");
        holding
            .execute_unprepared(&format!(
                "SELECT 1 FROM sessions WHERE id = '{}' FOR UPDATE",
                agent.session_id
            ))
            .await
            .expect("the session's row held");
        agent
            .client
            .cancel_prompt()
            .id(waiting.prompt_id)
            .send()
            .await
            .expect("the cancel is accepted");
        let early = tokio::time::timeout(Duration::from_millis(1500), waiting.rest()).await;
        assert!(
            early.is_err(),
            "`cancelled` was told while the session was still held: {early:?}"
        );
        holding.rollback().await.expect("let go");
        let rest = waiting.rest().await;
        assert_eq!(
            rest.last().map(|e| e.event.as_str()),
            Some("cancelled"),
            "{rest:?}"
        );
        let events = agent.turn("hello again").await;
        completed(&events);
    })
    .await;
}

/// `POST /v1/prompts/{prompt}/calls/{call}/approve` as `client`, with edited `input`
/// (none: the model's arguments).
pub(super) async fn approve(
    client: &parley_tests::client::Client,
    prompt: Uuid,
    call: Uuid,
    input: Option<serde_json::Map<String, Value>>,
) -> parley_tests::ApiResponse<parley_tests::client::types::ToolCall> {
    client
        .approve_call()
        .id(prompt)
        .call_id(call)
        .body(ApproveCall { input })
        .send()
        .await
}

/// The data of the next event of `kind` on `feed`, skipping others.
async fn next_on(feed: &mut SseReader, kind: &str) -> Value {
    loop {
        let event = feed.next(WAIT).await.expect("the feed goes on");
        if event.event == kind {
            return event.data;
        }
    }
}

/// Model calls the mock served.
pub(super) fn mock_calls(agent: &Agent) -> usize {
    agent.mock.requests().len()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_approval_survives_the_death_of_every_worker_and_runs_once() {
    run_test(Backend::Postgres, |_| async {
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = mock_provider_config(&mock.base_url(), "lease_s = 30");
        let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
        let admin = cluster.admin_client();
        let student = crate::fixtures::api::student_with_tool(&cluster, "wait@example.com").await;
        let definition = ToolDefinition {
            functions: Some(ALL.iter().map(|f| (*f).to_owned()).collect()),
            approval_required: Some(vec!["createTodo".into()]),
            ..crate::fixtures::api::definition("Keep track of things.")
        };
        let tool =
            crate::fixtures::api::tool_with(&admin, student.group.id, "Keeper", definition).await;
        let client = cluster.client_as(&student.token);
        let session = crate::fixtures::api::session(&client, tool.id).await;
        let accepted = typed::send_in_background(&client, session.id, ASKS).await;
        let prompt = accepted.prompt_id.to_string();
        let mut feed = cluster.prompt_events(&student.token, &prompt, None).await;
        let request = loop {
            let event = feed.next(WAIT).await.expect("the feed goes on");
            if event.event == "approval_requested" {
                break event.data;
            }
        };
        let call_id: Uuid = request["call_id"].as_str().unwrap().parse().unwrap();
        kill_every_worker_once_let_go(&mut cluster, &prompt).await;
        // Approved from another connection; a lease of 30 s would have to lapse before a
        // held prompt could be taken: a turn done well before that held none.
        let approved_at = Instant::now();
        approve(
            &cluster.client_as(&student.token),
            accepted.prompt_id,
            call_id,
            None,
        )
        .await
        .assert_status(200);
        let rest = tokio::time::timeout(Duration::from_secs(25), feed.until_terminal(WAIT))
            .await
            .expect("the turn resumed at once");
        assert!(approved_at.elapsed() < Duration::from_secs(25));
        completed(&rest);
        let todos = client.list_todos().send().await.assert_status(200);
        assert_eq!(
            todos.items.len(),
            1,
            "createTodo ran once: {:?}",
            todos.items
        );
        assert_eq!(
            mock.requests().len(),
            2,
            "the model was asked for the call once"
        );
    })
    .await;
}

/// Waits until the worker let go of `prompt` (no lease held: it suspended), then kills
/// every worker (SIGKILL) and starts a new one.
pub(super) async fn kill_every_worker_once_let_go(cluster: &mut Cluster, prompt: &str) {
    let released = format!(
        "SELECT COUNT(*) FROM prompts WHERE id = {} AND lease_owner IS NULL AND lease_expires_at IS NULL",
        cluster.sql_uuid(prompt)
    );
    let deadline = Instant::now() + WAIT;
    while cluster.count(&released).await != 1 {
        assert!(Instant::now() < deadline, "the prompt was never let go");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    for pid in cluster.worker_pids() {
        cluster.kill_worker(pid).await;
    }
    cluster.start_worker().await;
}
