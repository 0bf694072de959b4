//! Streaming turns end to end: the real binary, the mock LLM as its provider, SSE read
//! with a real parser. Each test runs on PostgreSQL and on SQLite (`parley serve`: the
//! embedded queue and event log).
//!
//! Requests go through the typed client (`parley_tests::client`) except:
//! * **SSE feeds** (`Accept: text/event-stream` on `POST …/messages`,
//!   `GET /v1/prompts/{id}/events`): plain HTTP read with the real SSE parser
//!   ([`SseReader`]), which the client does not do (`tests/build.rs` strips SSE).
//! * **`?background=true`**: its `202 AcceptedTurn` is not in the client (`build.rs` keeps
//!   only `send_message`'s 201), so [`Chat::send_in_background`] is a raw request whose
//!   body is decoded into the API's `AcceptedTurn`.
//!
//! One file per topic: the protocol of a streamed turn ([`protocol`]), readers of a feed
//! ([`readers`]), cancelling ([`cancel`]), resuming ([`resume`]), what to do while a
//! prompt is active and idempotency ([`policies`]), provider faults and usage
//! ([`faults`]), who may see a prompt and what a message may be ([`access`]), and what a
//! turn writes and when ([`persistence`]), and that readers are shown the stored text
//! without markers ([`markers`]).

mod access;
mod cancel;
mod fallback;
mod faults;
mod markers;
mod persistence;
mod policies;
mod protocol;
mod readers;
mod resume;
mod tree;

use std::time::Duration;

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::client::types::{
    AcceptedTurn, FinishedTurn, Message, OnActive, Prompt, PromptState, StreamingState,
};
use parley_tests::client::{Client, builder};
use parley_tests::turns::{config_path, mock_provider_config_with, prompt_id_of};
use parley_tests::{ApiResponse, ApiResult, Backend, SseEvent, SseReader, TestApp};
use uuid::Uuid;

use crate::fixtures::api::{self, uuid};

/// How long a test waits for the next event of a feed.
const WAIT: Duration = Duration::from_secs(20);

/// A server whose provider is the mock, and a student with a session.
struct Chat {
    app: TestApp,
    mock: MockLlm,
    token: String,
    /// The student's typed client.
    client: Client,
    session_id: Uuid,
    _config: tempfile::NamedTempFile,
}

async fn chat(backend: Backend) -> Chat {
    chat_with(backend, &[], &[]).await
}

/// Like [`chat`], with `[worker]` settings that replace the test defaults.
async fn chat_with(
    backend: Backend,
    worker_settings: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Chat {
    // Slow starts are on purpose in these tests; the first-token timeout is tested apart.
    chat_with_provider(
        backend,
        "first_token_timeout_ms = 60000",
        worker_settings,
        env,
    )
    .await
}

/// Like [`chat_with`], with `provider` (TOML lines) in the mock's `[[providers]]` entry.
async fn chat_with_provider(
    backend: Backend,
    provider: &str,
    worker_settings: &[(&str, &str)],
    env: &[(&str, &str)],
) -> Chat {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut worker = vec![
        ("stall_timeout_ms", "1000"),
        ("max_attempts", "2"),
        ("lease_s", "5"),
        // Tests of faults fail many calls in a row on purpose: the breaker is tested apart.
        ("breaker_failures", "1000"),
    ];
    for (key, value) in worker_settings {
        worker.retain(|(k, _)| k != key);
        worker.push((key, value));
    }
    let worker: String = worker.iter().map(|(k, v)| format!("{k} = {v}\n")).collect();
    let config = mock_provider_config_with(&mock.base_url(), provider, &worker);
    let path = config_path(&config);
    let mut env = env.to_vec();
    env.push(("PARLEY_CONFIG", &path));
    let app = TestApp::spawn_with_env(backend, &env).await;
    Chat::open(app, mock, config, "chatter@example.com").await
}

impl Chat {
    /// A student (`email`) with a tool and a session on `app`, whose provider is `mock`
    /// (configured in `config`).
    async fn open(
        app: TestApp,
        mock: MockLlm,
        config: tempfile::NamedTempFile,
        email: &str,
    ) -> Chat {
        let student = api::student_with_tool(&app, email).await;
        let client = app.client_as(&student.token);
        let session = api::session(&client, student.tool.id).await;
        Chat {
            session_id: session.id,
            token: student.token,
            client,
            app,
            mock,
            _config: config,
        }
    }
}

impl Chat {
    /// Sends a message asking for the SSE feed (plain HTTP, see the module's doc).
    async fn stream(&self, content: &str) -> SseReader {
        self.app
            .stream_message(&self.token, &self.session_id.to_string(), content)
            .await
    }

    /// `send_message` to the session, to finish with `.body_map(…)` and query
    /// parameters other than `background`.
    fn message(&self) -> builder::SendMessage<'_> {
        self.client.send_message().id(self.session_id)
    }

    /// Sends a message in JSON mode: the finished turn (201) or the problem it ended with.
    async fn send_json(&self, content: &str) -> ApiResponse<FinishedTurn> {
        self.message().body_map(|b| b.content(content)).send().await
    }

    /// Sends a message with `?background=true` (and `on_active`, an `Idempotency-Key`
    /// when given); asserts the 202. Raw: the client has no 202 for `send_message`.
    async fn send_in_background(
        &self,
        content: &str,
        on_active: Option<OnActive>,
        idempotency_key: Option<&str>,
    ) -> AcceptedTurn {
        self.app
            .send_in_background_with(
                &self.token,
                &self.session_id.to_string(),
                content,
                on_active,
                idempotency_key,
            )
            .await
    }

    /// Opens the SSE feed of a prompt (asserted 200), after `Last-Event-ID` when given.
    async fn events(&self, prompt_id: Uuid, last_event_id: Option<u64>) -> SseReader {
        self.app
            .prompt_events(&self.token, &prompt_id.to_string(), last_event_id)
            .await
    }

    /// `GET /v1/prompts/{id}` (asserted 200).
    async fn prompt(&self, prompt_id: Uuid) -> Prompt {
        self.client
            .get_prompt()
            .id(prompt_id)
            .send()
            .await
            .assert_status(200)
            .into_inner()
    }

    /// Every message of the session (one page of up to 100), oldest first.
    async fn messages(&self) -> Vec<Message> {
        parley_tests::typed::messages(&self.client, self.session_id).await
    }

    /// `GET /v1/sessions/{id}/streaming` (asserted 200).
    async fn streaming(&self) -> StreamingState {
        self.client
            .get_streaming_state()
            .id(self.session_id)
            .send()
            .await
            .assert_status(200)
            .into_inner()
    }
}

/// Checks a prompt's state and how many times a worker started it.
async fn assert_prompt(chat: &Chat, prompt_id: Uuid, state: PromptState, attempt: i32) {
    let prompt = chat.prompt(prompt_id).await;
    assert_eq!(
        (prompt.state, prompt.attempt),
        (state, attempt),
        "{prompt:?}"
    );
}

/// The `prompt_id` of the first event, as a UUID.
fn prompt_uuid(events: &[SseEvent]) -> Uuid {
    uuid(&prompt_id_of(events))
}
