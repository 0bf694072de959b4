//! Function calling end to end: the model (the mock LLM) asks for calls, Parley runs the
//! built-in functions on real tables, feeds the results back and calls the model again.
//! Each test runs on PostgreSQL and SQLite; the feeds are read with a real SSE parser,
//! everything else goes through the generated client.
//!
//! * [`approvals`] — calls that wait for the user's approval: approved (with edited
//!   input, from another connection), denied, expired, cancelled while waiting, a
//!   worker killed while one waits — side effects counted;
//! * [`calls`] — one call, parallel calls, split names, what goes back to the model;
//! * [`checks`] — malformed, invalid, unknown and denied calls are fed back, not fatal;
//!   the iteration limit; the catalog and tool definitions;
//! * [`client`] — functions of the caller's own: the call streamed, the turn suspended
//!   until the caller posts the result, refusals, the expiry, a cancel while waiting;
//! * [`crash`] — a worker killed between a call and the next model call: the call is
//!   not run twice and the transcript is whole;
//! * [`reasoning`] — thinking models' state through the tool loop: DeepSeek's
//!   `reasoning_content` and Gemini's thought signatures sent back on the follow-up, also
//!   after an approval resumes the turn and after a worker dies mid-turn;
//! * [`payloads`] — function payloads, LLM payload markers, suggestions and the
//!   server-handled actions they offer;
//! * [`mcp`] — functions of MCP servers (stdio and streamable HTTP): listed, called,
//!   failing, timing out, cancelled mid-call;
//! * [`mcp_joins`] — an MCP server down at start-up joins when it comes back; one on a
//!   loopback address is refused under `outbound.deny_private_addresses`.

mod approvals;
mod calls;
mod checks;
mod client;
mod crash;
mod mcp;
mod mcp_joins;
mod payloads;
mod reasoning;

use std::time::Duration;

use parley_mock_llm::{DEFAULT_MODEL, Dialect, MockConfig, MockLlm};
use parley_tests::client::Client;
use parley_tests::client::types::{ToolDefinition, User};
use parley_tests::turns::{
    assert_gap_free, config_path, mock_anthropic_config, mock_provider_config,
};
use parley_tests::{ApiResult, Backend, SseEvent, TestApp};
use serde_json::Value;
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

/// How long a test waits for the next event of a feed.
const WAIT: Duration = Duration::from_secs(20);

/// Every built-in function.
const ALL: [&str; 5] = [
    "createNote",
    "createTodo",
    "getAssignmentInfo",
    "getCurrentTime",
    "searchPriorSessions",
];

/// A server whose model is the mock, and a student with a session on a tool that offers
/// functions.
struct Agent {
    app: TestApp,
    mock: MockLlm,
    token: String,
    client: Client,
    session_id: Uuid,
    _config: tempfile::NamedTempFile,
}

/// What an [`Agent`]'s tool and student are like.
struct Setup<'a> {
    functions: &'a [&'a str],
    max_iterations: Option<u32>,
    /// Extra entries of the student's permissions (`-name` revokes).
    permissions: &'a [&'a str],
    worker: &'a str,
    /// More of the config file, after the `[worker]` table (e.g. `[[mcp_servers]]`).
    config: &'a str,
    /// The tool's `payload_types` (LLM payloads it enables).
    payload_types: &'a [&'a str],
    /// The tool's `suggestions`.
    suggestions: bool,
    /// The tool's `approval_required`.
    approval_required: &'a [&'a str],
    /// How the mock's model behaves beyond plain OpenAI (a strict thinking model).
    dialect: Dialect,
    /// Serve the model through the mock's Anthropic endpoint, with this much extended
    /// thinking (`Some(0)`: without).
    anthropic: Option<u32>,
}

impl Default for Setup<'_> {
    fn default() -> Self {
        Self {
            functions: &ALL,
            max_iterations: None,
            permissions: &[],
            worker: "",
            config: "",
            payload_types: &[],
            suggestions: false,
            approval_required: &[],
            dialect: Dialect::Plain,
            anthropic: None,
        }
    }
}

async fn agent(backend: Backend, setup: Setup<'_>) -> Agent {
    agent_with_env(backend, setup, &[]).await
}

/// An [`Agent`] whose server has more environment.
async fn agent_with_env(backend: Backend, setup: Setup<'_>, env: &[(&str, &str)]) -> Agent {
    let mock = MockLlm::start(MockConfig {
        dialects: [(DEFAULT_MODEL.to_owned(), setup.dialect)].into(),
        ..MockConfig::default()
    })
    .await;
    let worker = format!("{}\n{}", setup.worker, setup.config);
    let config = match setup.anthropic {
        None => mock_provider_config(&mock.base_url(), &worker),
        Some(0) => mock_anthropic_config(&mock.anthropic_base_url(), "", &worker),
        Some(budget) => mock_anthropic_config(
            &mock.anthropic_base_url(),
            &format!("thinking_budget_tokens = {budget}"),
            &worker,
        ),
    };
    let path = config_path(&config);
    let mut env = env.to_vec();
    env.push(("PARLEY_CONFIG", &path));
    let app = TestApp::spawn_with_env(backend, &env).await;
    let admin = app.admin_client();
    let (user_id, token) = app.create_user("agent@example.com", "student").await;
    let user = uuid(&user_id);
    if !setup.permissions.is_empty() {
        let permissions: Vec<String> = setup.permissions.iter().map(|p| (*p).into()).collect();
        let updated: User = admin
            .admin_update_user()
            .id(user)
            .body_map(|b| b.permissions(permissions))
            .send()
            .await
            .assert_status(200)
            .into_inner();
        assert_eq!(updated.permissions.len(), setup.permissions.len());
    }
    let group = api::group(&admin, "Agents", None, serde_json::json!({})).await;
    api::add_member(&admin, group.id, user).await;
    let definition = ToolDefinition {
        functions: Some(setup.functions.iter().map(|f| (*f).to_owned()).collect()),
        max_iterations: setup.max_iterations,
        payload_types: (!setup.payload_types.is_empty()).then(|| {
            setup
                .payload_types
                .iter()
                .map(|t| (*t).to_owned())
                .collect()
        }),
        suggestions: setup.suggestions.then_some(true),
        approval_required: (!setup.approval_required.is_empty()).then(|| {
            setup
                .approval_required
                .iter()
                .map(|f| (*f).to_owned())
                .collect()
        }),
        ..api::definition("Help with homework.")
    };
    let tool = api::tool_with(&admin, group.id, "Agent", definition).await;
    let client = app.client_as(&token);
    let session = api::session(&client, tool.id).await;
    Agent {
        session_id: session.id,
        client,
        token,
        app,
        mock,
        _config: config,
    }
}

impl Agent {
    /// Sends a message, reads its feed to the end and checks it is gap-free.
    async fn turn(&self, content: &str) -> Vec<SseEvent> {
        let session = self.session_id.to_string();
        let mut feed = self
            .app
            .stream_message(&self.token, &session, content)
            .await;
        assert_eq!(feed.status, 200);
        let events = feed.until_terminal(WAIT).await;
        assert_gap_free(&events);
        events
    }
}

/// The events of one type.
fn of_type<'a>(events: &'a [SseEvent], kind: &str) -> Vec<&'a Value> {
    events
        .iter()
        .filter(|e| e.event == kind)
        .map(|e| &e.data)
        .collect()
}

/// The terminal `complete` event's data (panics on any other end).
fn completed(events: &[SseEvent]) -> &Value {
    let last = events.last().expect("events");
    assert_eq!(last.event, "complete", "{events:?}");
    &last.data
}
