//! Thinking models through the tool loop (#45 items 1 and 2): the mock's strict models
//! answer 400, as DeepSeek's thinking mode, Gemini 3 and Claude with extended thinking
//! do, when the follow-up request of a turn lacks what they need back of the response
//! that made the call — DeepSeek's `reasoning_content` on the assistant message with
//! `tool_calls`, Gemini's `extra_content.google.thought_signature` on its first call,
//! Claude's signed `thinking` (and `redacted_thinking`) blocks before its `tool_use`
//! (through Parley's native Anthropic provider and the mock's Messages endpoint). A tutor
//! with a function completes a two-round turn on each; the same when the turn resumes
//! after an approval (the state comes from the call's row, not from a live attempt) and
//! when the worker that made the call is killed before the follow-up (another one
//! replays the call).

use std::time::{Duration, Instant};

use parley_mock_llm::{DEFAULT_MODEL, Dialect, MockConfig, MockLlm, RecordedRequest};
use parley_tests::client::types::{ApproveCall, ToolDefinition};
use parley_tests::turns::{config_path, mock_provider_config};
use parley_tests::{ApiResult, Backend, Cluster, both_backends, run_test, typed};
use serde_json::Value;
use uuid::Uuid;

use super::*;

/// A strict thinking model of the mock.
#[derive(Debug, Clone, Copy)]
enum Strict {
    DeepSeek,
    Gemini,
    /// Through the Anthropic provider, extended thinking on.
    Claude,
}

const STRICT: [Strict; 3] = [Strict::DeepSeek, Strict::Gemini, Strict::Claude];

impl Strict {
    /// The agent's setup for this model.
    fn setup<'a>(self, setup: Setup<'a>) -> Setup<'a> {
        match self {
            Self::DeepSeek => Setup {
                dialect: Dialect::DeepSeek,
                ..setup
            },
            Self::Gemini => Setup {
                dialect: Dialect::Gemini,
                ..setup
            },
            Self::Claude => Setup {
                anthropic: Some(1024),
                ..setup
            },
        }
    }
}

/// The message whose first model call asks for `getCurrentTime`.
const ASKS_TIME: &str = r#"[[mock reasoning=I_should_look_at_the_clock tool_call='getCurrentTime:{"time_zone": "UTC"}']] what time is it?"#;

/// The follow-up request: the first one that carries a function's result.
fn follow_up(requests: &[RecordedRequest]) -> &RecordedRequest {
    requests
        .iter()
        .find(|r| !r.tool_results().is_empty())
        .unwrap_or_else(|| panic!("no follow-up request: {requests:#?}"))
}

/// Checks that the follow-up's assistant message carries what `model` needs back.
fn carries_the_state(model: Strict, request: &RecordedRequest) {
    let messages = request.body["messages"].as_array().expect("messages");
    if let Strict::Claude = model {
        let assistant = messages
            .iter()
            .find(|m| m["role"] == "assistant")
            .unwrap_or_else(|| panic!("no assistant turn: {messages:#?}"));
        let first = &assistant["content"][0];
        assert_eq!(
            first["type"], "thinking",
            "the thinking block first: {assistant}"
        );
        assert!(
            first["thinking"]
                .as_str()
                .is_some_and(|t| t.contains("clock")),
            "{first}"
        );
        assert!(
            first["signature"].as_str().is_some_and(|s| !s.is_empty()),
            "{first}"
        );
        assert_eq!(request.body["thinking"]["budget_tokens"], 1024);
        return;
    }
    let assistant = messages
        .iter()
        .find(|m| m["role"] == "assistant" && m["tool_calls"].is_array())
        .unwrap_or_else(|| panic!("no assistant message with calls: {messages:#?}"));
    match model {
        Strict::DeepSeek => {
            let reasoning = assistant["reasoning_content"].as_str().unwrap_or_default();
            assert!(
                reasoning.contains("clock"),
                "the call's reasoning goes back: {assistant}"
            );
        }
        Strict::Gemini => {
            let signature =
                &assistant["tool_calls"][0]["extra_content"]["google"]["thought_signature"];
            assert!(
                signature.as_str().is_some_and(|s| !s.is_empty()),
                "the call's thought signature goes back: {assistant}"
            );
        }
        Strict::Claude => unreachable!("answered above"),
    }
}

both_backends!(
    a_thinking_model_gets_its_state_back_on_the_follow_up_of_a_function_call,
    |backend: Backend| async move {
        for dialect in STRICT {
            let agent = agent(backend, dialect.setup(Setup::default())).await;
            let events = agent.turn(ASKS_TIME).await;
            let end = completed(&events);
            assert_eq!(
                end["payload"]["tool_history"].as_array().map(Vec::len),
                Some(1),
                "{dialect:?}: {events:?}"
            );
            let requests = agent.mock.requests();
            assert_eq!(requests.len(), 2, "{dialect:?}: two rounds, no refusal");
            carries_the_state(dialect, follow_up(&requests));
        }
    }
);

both_backends!(
    a_turn_resumed_after_an_approval_sends_the_state_of_the_response_that_asked,
    |backend: Backend| async move {
        for dialect in STRICT {
            let agent = agent(
                backend,
                dialect.setup(Setup {
                    approval_required: &["createTodo"],
                    ..Setup::default()
                }),
            )
            .await;
            let asks = r#"[[mock reasoning=A_todo_is_what_they_want,_by_the_clock tool_call='createTodo:{"title": "buy milk"}']] remind me"#;
            let accepted = typed::send_in_background(&agent.client, agent.session_id, asks).await;
            let prompt = accepted.prompt_id.to_string();
            let mut feed = agent.app.prompt_events(&agent.token, &prompt, None).await;
            let request = loop {
                let event = feed.next(WAIT).await.expect("the feed goes on");
                if event.event == "approval_requested" {
                    break event.data;
                }
            };
            let call: Uuid = request["call_id"].as_str().unwrap().parse().unwrap();
            agent
                .client
                .approve_call()
                .id(accepted.prompt_id)
                .call_id(call)
                .body(ApproveCall { input: None })
                .send()
                .await
                .assert_status(200);
            let rest = feed.until_terminal(WAIT).await;
            completed(&rest);
            let requests = agent.mock.requests();
            assert_eq!(requests.len(), 2, "{dialect:?}: asked once, answered once");
            carries_the_state(dialect, follow_up(&requests));
        }
    }
);

/// The most a turn whose worker died may take to complete elsewhere (`crash.rs`).
const TAKEOVER: Duration = Duration::from_secs(75);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_taken_over_after_its_worker_died_sends_the_state_of_the_replayed_call() {
    run_test(Backend::Postgres, |_| async {
        for model in [Strict::DeepSeek, Strict::Claude] {
            taken_over(model).await;
        }
    })
    .await;
}

async fn taken_over(model: Strict) {
    let mock = MockLlm::start(MockConfig {
        dialects: [(DEFAULT_MODEL.to_owned(), Dialect::DeepSeek)].into(),
        ..MockConfig::default()
    })
    .await;
    let worker = "stall_timeout_ms = 20000\nmax_attempts = 2\nlease_s = 3";
    let config = match model {
        Strict::Claude => parley_tests::turns::mock_anthropic_config(
            &mock.anthropic_base_url(),
            "thinking_budget_tokens = 1024",
            worker,
        ),
        _ => mock_provider_config(&mock.base_url(), worker),
    };
    let mut cluster = Cluster::spawn(&[("PARLEY_CONFIG", &config_path(&config))]).await;
    let admin = cluster.admin_client();
    let student = crate::fixtures::api::student_with_tool(&cluster, "think@example.com").await;
    let definition = ToolDefinition {
        functions: Some(ALL.iter().map(|f| (*f).to_owned()).collect()),
        ..crate::fixtures::api::definition("Keep track of things.")
    };
    let tool =
        crate::fixtures::api::tool_with(&admin, student.group.id, "Keeper", definition).await;
    let client = cluster.client_as(&student.token);
    let session = crate::fixtures::api::session(&client, tool.id).await;
    // Every model call waits 4 s for its first token: the follow-up is where the
    // worker dies.
    let content = r#"[[mock first_token_delay_ms=4000 reasoning=Note_it_by_the_clock tool_call='createTodo:{"title": "once"}']] note it"#;
    let accepted = typed::send_in_background(&client, session.id, content).await;
    let prompt = accepted.prompt_id.to_string();
    let mut feed = cluster.prompt_events(&student.token, &prompt, None).await;
    let mut seen = Vec::new();
    while !seen
        .iter()
        .any(|e: &parley_tests::SseEvent| e.event == "tool_complete")
    {
        seen.push(feed.next(WAIT).await.expect("the feed ended early"));
    }
    let deadline = Instant::now() + WAIT;
    let victim = loop {
        if let [pid] = cluster.workers_connected_to(mock.addr())[..] {
            break pid;
        }
        assert!(
            Instant::now() < deadline,
            "no worker made the follow-up call"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    cluster.kill_worker(victim).await;
    let rest = tokio::time::timeout(TAKEOVER, feed.until_terminal(TAKEOVER))
        .await
        .expect("the turn completed on the other worker");
    completed(&rest);
    let todos = client.list_todos().send().await.assert_status(200);
    assert_eq!(todos.items.len(), 1, "createTodo ran once");
    // Every follow-up — the dead worker's and the survivor's — carried the reasoning.
    let requests = mock.requests();
    let follow_ups: Vec<&RecordedRequest> = requests
        .iter()
        .filter(|r| !r.tool_results().is_empty())
        .collect();
    assert!(follow_ups.len() >= 2, "{requests:#?}");
    for request in follow_ups {
        carries_the_state(model, request);
        assert!(
            !matches!(request.outcome, parley_mock_llm::Outcome::Rejected(_)),
            "{request:#?}"
        );
    }
    let last: &Value = &requests.last().expect("requests").body;
    assert!(last["messages"].is_array());
}
