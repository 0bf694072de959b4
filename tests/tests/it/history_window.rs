//! Long conversations (#45 item 5): the history window moves in steps, so the requests
//! between two steps grow only at their end (a provider's prefix cache keeps hitting),
//! and what a step leaves out is summarized by a model call and heads the history the
//! model reads; the owner (and nobody else) reads where the window starts and the
//! summary. A failing summary call fails no turn.
//!
//! The mock model here has a small window (`max_context`), so a conversation of a few
//! hundred short messages outgrows it many times; the summary model is a second model of
//! the same mock.

use parley_mock_llm::{MockConfig, MockLlm, RecordedRequest};
use parley_tests::client::Client;
use parley_tests::{
    ApiResult, Backend, TestApp, both_backends, client::types, metrics::Scrape, typed,
};
use serde_json::json;
use uuid::Uuid;

use crate::fixtures::api;

/// The turn model's window; the worker keeps 1,024 tokens of it for the answer.
const MAX_CONTEXT: usize = 1600;
const RESPONSE_BUFFER: usize = 1024;
/// The most input a turn may send, as the mock counts: the window less the answer's room,
/// with 3 % for the worker's estimate of the mock's count.
const WITHIN: usize = (MAX_CONTEXT - RESPONSE_BUFFER) * 103 / 100;
const SUMMARY_HEADING: &str = "=== Earlier in this conversation (summary) ===";

async fn served(backend: Backend) -> (TestApp, MockLlm, tempfile::NamedTempFile) {
    let mock = MockLlm::start(MockConfig {
        models: vec!["mock-model".into(), "summarizer".into()],
        ..MockConfig::default()
    })
    .await;
    let mut config = tempfile::NamedTempFile::new().expect("a temp file");
    std::io::Write::write_all(
        &mut config,
        format!(
            "[[providers]]\nname = \"mock\"\nbase_url = \"{}\"\n\n\
             [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\nmax_context = {MAX_CONTEXT}\n\n\
             [[models]]\nid = \"summarizer\"\nprovider = \"mock\"\nmax_output_tokens = 80\n",
            mock.base_url()
        )
        .as_bytes(),
    )
    .expect("writing the config");
    let path = config.path().to_str().expect("a UTF-8 path").to_owned();
    let app = TestApp::spawn_with_env(backend, &[("PARLEY_CONFIG", &path)]).await;
    (app, mock, config)
}

/// A student with a tutor whose long conversations keep `history` (JSON).
async fn student(app: &TestApp, email: &str, history: serde_json::Value) -> api::Student {
    let admin = app.admin_client();
    let student = api::student_with_tool(app, email).await;
    let definition: types::ToolDefinition = serde_json::from_value(json!({
        "behavior": "Help with homework.",
        "history": history,
    }))
    .expect("a definition");
    let tool = api::tool_with(&admin, student.group.id, "Long talker", definition).await;
    api::Student { tool, ..student }
}

/// The requests of the conversation's turns (not the summary calls), in order.
fn turn_requests(mock: &MockLlm) -> Vec<RecordedRequest> {
    mock.requests()
        .into_iter()
        .filter(|r| r.model == "mock-model")
        .collect()
}

fn contents(request: &RecordedRequest) -> Vec<(&str, &str)> {
    request
        .messages
        .iter()
        .map(|m| (m.role.as_str(), m.content.as_str()))
        .collect()
}

/// The message of turn `n` of a conversation: a dozen words.
fn message(n: usize) -> String {
    format!("turn {n}: tell me a little more about topic {n} please")
}

/// Turns `from..=to` of a conversation, each answered (201).
async fn talk(client: &Client, session: Uuid, turns: std::ops::RangeInclusive<usize>) {
    for turn in turns {
        typed::send_message(client, session, &message(turn))
            .await
            .assert_status(201);
    }
}

/// `GET /v1/sessions/{id}/summary` (200).
async fn summary_of(client: &Client, session: Uuid) -> types::SessionSummary {
    client
        .get_session_summary()
        .id(session)
        .send()
        .await
        .assert_status(200)
        .into_inner()
}

async fn compactions(app: &TestApp, outcome: &str) -> f64 {
    let scrape = Scrape::parse(&app.get("/metrics", None).await.text);
    scrape
        .sum("parley_compactions_total", &[("outcome", outcome)])
        .unwrap_or(0.0)
}

both_backends!(
    a_long_conversation_steps_its_window_and_keeps_a_refreshed_summary_at_its_head,
    |backend: Backend| async move {
        let (app, mock, _config) = served(backend).await;
        let history = json!({"compaction": "summarize", "summary_model": "summarizer"});
        let owner = student(&app, "long@example.com", history).await;
        let client = app.client_as(&owner.token);
        let session = api::session(&client, owner.tool.id).await;
        let before = compactions(&app, "summarized").await;
        const TURNS: usize = 200;
        talk(&client, session.id, 1..=TURNS).await;
        let requests = turn_requests(&mock);
        assert_eq!(requests.len(), TURNS);

        // Within the window, every turn: what the model reads stays bounded however long
        // the conversation grows. The mock counts a token a word, which this worker
        // learns from the mock's reports (it has no tokenizer for the model): its count
        // is an estimate, allowed 3 % over.
        for (i, request) in requests.iter().enumerate() {
            assert!(
                request.prompt_tokens as f64 <= WITHIN as f64,
                "turn {}: {} tokens over the window",
                i + 1,
                request.prompt_tokens
            );
        }
        // And the window is used: late turns fill more than half of it.
        let late = requests[TURNS - 20..].iter().map(|r| r.prompt_tokens).max();
        assert!(
            late.unwrap_or(0) as f64 > (MAX_CONTEXT - RESPONSE_BUFFER) as f64 * 0.5,
            "{late:?}"
        );
        // The window moves in steps: between two steps each request is the one before
        // it and its answer, then the new message — so a prefix cache hits every time.
        let mut steps_seen = 0;
        for pair in requests.windows(2) {
            let (was, now) = (contents(&pair[0]), contents(&pair[1]));
            let grows = now.len() == was.len() + 2 && now[..was.len()] == was[..];
            if !grows {
                steps_seen += 1;
            }
        }
        let summary = summary_of(&client, session.id).await;
        assert!(
            summary.steps >= 5,
            "two hundred turns step a window of a few exchanges often: {summary:?}"
        );
        assert_eq!(
            steps_seen, summary.steps as usize,
            "a request differs from its predecessor's prefix only when the window steps"
        );
        assert!(compactions(&app, "summarized").await - before >= summary.steps as f64);
        assert_eq!(summary.model.as_deref(), Some("summarizer"));
        let text = summary.summary.clone().expect("a summary");

        // The summary heads the history of every turn after the first step, and each
        // step wrote a new one: the summary of the last request is the stored one.
        let first_step = requests
            .iter()
            .position(|r| {
                r.messages
                    .iter()
                    .any(|m| m.content.starts_with(SUMMARY_HEADING))
            })
            .expect("a request with a summary");
        let mut summaries = Vec::new();
        for request in &requests[first_step..] {
            let head = &request.messages[1];
            assert_eq!(head.role, "system", "{:?}", contents(request));
            let body = head
                .content
                .strip_prefix(SUMMARY_HEADING)
                .expect("the summary right after the system prompt");
            if summaries.last() != Some(&body.trim().to_owned()) {
                summaries.push(body.trim().to_owned());
            }
        }
        assert_eq!(summaries.last(), Some(&text));
        assert_eq!(
            summaries.len(),
            summary.steps as usize,
            "a new summary at each step"
        );
        // The summary calls read the summary so far and the messages a step left out.
        let calls: Vec<RecordedRequest> = mock
            .requests()
            .into_iter()
            .filter(|r| r.model == "summarizer")
            .collect();
        assert_eq!(calls.len(), summary.steps as usize);
        assert!(
            calls[0].messages[1]
                .content
                .contains("User: turn 1: tell me")
        );
        assert!(calls[1].messages[1].content.starts_with("Earlier summary:"));
        // The summary call is on the ledger, under the turn that stepped.
        let ledger = app
            .admin_client()
            .admin_usage_calls()
            .model("summarizer")
            .limit(100)
            .send()
            .await
            .assert_status(200)
            .into_inner()
            .items;
        assert_eq!(ledger.len(), calls.len());
        assert!(ledger.iter().all(|row| row.model == "summarizer"));

        // Another user's session summary is not found.
        let other = api::student_with_tool(&app, "other@example.com").await;
        let code = app
            .client_as(&other.token)
            .get_session_summary()
            .id(session.id)
            .send()
            .await
            .assert_problem(404);
        assert_eq!(code, "not_found");
        // A fresh conversation never stepped.
        let fresh = api::session(&client, owner.tool.id).await;
        let none = summary_of(&client, fresh.id).await;
        assert_eq!((none.steps, none.summary), (0, None));
    }
);

both_backends!(
    a_failing_summary_call_fails_no_turn_and_the_window_still_holds,
    |backend: Backend| async move {
        let (app, mock, _config) = served(backend).await;
        let history = json!({"compaction": "summarize", "summary_model": "summarizer"});
        let owner = student(&app, "failing@example.com", history).await;
        let client = app.client_as(&owner.token);
        let session = api::session(&client, owner.tool.id).await;
        let before = compactions(&app, "failed").await;
        // The first message carries a fault for the summary model only: every summary
        // call reads it (it is among what a first step leaves out) and gets a 500.
        const TURNS: usize = 60;
        for turn in 1..=TURNS {
            let text = if turn == 1 {
                "[[mock status=500 model=summarizer]] turn 1: let us begin".to_owned()
            } else {
                message(turn)
            };
            let finished = typed::send_message(&client, session.id, &text)
                .await
                .assert_status(201)
                .into_inner();
            assert_eq!(finished.model, "mock-model", "turn {turn}");
        }
        let failed = compactions(&app, "failed").await - before;
        assert!(failed >= 1.0, "the failed calls are counted");
        let summarizer = mock
            .requests()
            .into_iter()
            .filter(|r| r.model == "summarizer")
            .count();
        assert_eq!(summarizer as f64, failed, "each failed call counted once");
        for request in turn_requests(&mock) {
            assert!(request.prompt_tokens as usize <= WITHIN);
            assert!(
                !request
                    .messages
                    .iter()
                    .any(|m| m.content.starts_with(SUMMARY_HEADING)),
                "no summary was written"
            );
        }
        let summary = summary_of(&client, session.id).await;
        assert_eq!(
            summary.steps, 0,
            "a failed step is not recorded: the next turn tries again"
        );
    }
);

both_backends!(
    a_tool_that_does_not_summarize_steps_its_window_without_a_summary_call,
    |backend: Backend| async move {
        let (app, mock, _config) = served(backend).await;
        let owner = student(&app, "plain@example.com", json!({"compaction": "off"})).await;
        let client = app.client_as(&owner.token);
        let session = api::session(&client, owner.tool.id).await;
        talk(&client, session.id, 1..=60).await;
        assert!(mock.requests().iter().all(|r| r.model == "mock-model"));
        let summary = summary_of(&client, session.id).await;
        assert!(summary.steps >= 1, "{summary:?}");
        assert_eq!(summary.summary, None);
        let last = turn_requests(&mock).pop().expect("a request");
        assert!(last.prompt_tokens as usize <= WITHIN);
        assert!(
            !last.messages[1].content.contains("turn 1:"),
            "the first messages fell out of the window"
        );
    }
);
