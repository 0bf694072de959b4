//! Turn helpers shared by the streaming tests: a config file whose provider is the mock
//! LLM, sending messages and following prompt feeds over SSE, and the checks of DESIGN
//! §6 every feed must pass.

use std::io::Write;
use std::time::{Duration, Instant};

use reqwest::header::{AUTHORIZATION, HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};
use tempfile::NamedTempFile;

use crate::client::Client;
use crate::client::types::{AcceptedTurn, OnActive};
use crate::{SseEvent, SseReader, TEST_TIMEOUT, TestApp, TestResponse};

/// The whole-request limit of an SSE request: a feed may stay open through a worker's
/// death and take-over, longer than the client's default 30 s; [`SseReader::next`]
/// bounds each wait instead.
const FEED_TIMEOUT: Duration = TEST_TIMEOUT;

/// A `parley.toml` whose one provider (`mock`, model `mock-model`) is the mock LLM at
/// `base_url`, plus `[worker]` lines (e.g. `lease_s = 3`). Keep the file alive as long as
/// processes may start with it (`PARLEY_CONFIG`).
pub fn mock_provider_config(base_url: &str, worker: &str) -> NamedTempFile {
    // Tests of slow starts (readers joining, cancels) delay the first token on purpose:
    // the first-token timeout is tested apart.
    mock_provider_config_with(base_url, "first_token_timeout_ms = 60000", worker)
}

/// Like [`mock_provider_config`], with `provider` (TOML lines) in the mock's
/// `[[providers]]` entry.
pub fn mock_provider_config_with(base_url: &str, provider: &str, worker: &str) -> NamedTempFile {
    let mut config = NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nbase_url = \"{base_url}\"\n{provider}\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\n\n[worker]\n{worker}\n"
    )
    .expect("writing the config");
    config
}

/// A config whose one model, `mock-model`, is served by the mock's Anthropic Messages
/// endpoint (`kind = "anthropic"`, `base_url` from `MockLlm::anthropic_base_url`);
/// `model` is more of its `[[models]]` table (e.g. `thinking_budget_tokens = 1024`).
pub fn mock_anthropic_config(base_url: &str, model: &str, worker: &str) -> NamedTempFile {
    let mut config = NamedTempFile::new().expect("a temp file");
    write!(
        config,
        "[[providers]]\nname = \"mock\"\nkind = \"anthropic\"\nbase_url = \"{base_url}\"\n\
         api_key = \"sk-ant-test\"\nfirst_token_timeout_ms = 60000\n\n\
         [[models]]\nid = \"mock-model\"\nprovider = \"mock\"\n{model}\n\n[worker]\n{worker}\n"
    )
    .expect("writing the config");
    config
}

/// The path of a config file, for `PARLEY_CONFIG`.
pub fn config_path(config: &NamedTempFile) -> String {
    config.path().to_str().expect("a UTF-8 path").to_owned()
}

impl TestApp {
    /// `POST /v1/sessions/{session_id}/messages` asking for the SSE feed.
    pub async fn stream_message(&self, token: &str, session_id: &str, content: &str) -> SseReader {
        self.stream_message_with(token, session_id, content, &[])
            .await
    }

    /// Like [`TestApp::stream_message`], with more request headers.
    pub async fn stream_message_with(
        &self,
        token: &str,
        session_id: &str,
        content: &str,
        headers: &[(&str, &str)],
    ) -> SseReader {
        let mut request = self
            .client
            .post(self.url(&format!("/v1/sessions/{session_id}/messages")))
            .bearer_auth(token);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let response = request
            .header("accept", "text/event-stream")
            .timeout(FEED_TIMEOUT)
            .json(&json!({"content": content}))
            .send()
            .await
            .unwrap_or_else(|err| panic!("sending a message: {err}"));
        SseReader::new(response)
    }

    /// `POST /v1/sessions/{session_id}/messages{query}` with `Accept: application/json`
    /// (`query` e.g. `?background=true`).
    pub async fn send_message(
        &self,
        token: &str,
        session_id: &str,
        content: &str,
        query: &str,
    ) -> TestResponse {
        let request = self
            .client
            .post(self.url(&format!("/v1/sessions/{session_id}/messages{query}")))
            .bearer_auth(token)
            .header("accept", "application/json")
            .json(&json!({"content": content}));
        self.send(request).await
    }

    /// Sends a message with `?background=true`, asserts the 202 and returns the prompt id.
    pub async fn send_in_background(&self, token: &str, session_id: &str, content: &str) -> String {
        self.send_in_background_with(token, session_id, content, None, None)
            .await
            .prompt_id
            .to_string()
    }

    /// `POST /v1/sessions/{session_id}/messages?background=true`, with `on_active` and an
    /// `Idempotency-Key` when given; asserts the 202 and returns the [`AcceptedTurn`].
    ///
    /// A raw request: the typed client has no 202 for `send_message` (`tests/build.rs`
    /// keeps only its 201 `FinishedTurn`), so the body is decoded here into the API's type.
    pub async fn send_in_background_with(
        &self,
        token: &str,
        session_id: &str,
        content: &str,
        on_active: Option<OnActive>,
        idempotency_key: Option<&str>,
    ) -> AcceptedTurn {
        let body = json!({"content": content});
        self.background_turn(token, session_id, &body, on_active, idempotency_key)
            .await
    }

    /// Like [`TestApp::send_in_background_with`], with the whole request body (e.g. an
    /// edit's `parent_message_id`).
    pub async fn send_in_background_body(
        &self,
        token: &str,
        session_id: &str,
        body: &serde_json::Value,
        on_active: Option<OnActive>,
    ) -> AcceptedTurn {
        self.background_turn(token, session_id, body, on_active, None)
            .await
    }

    async fn background_turn(
        &self,
        token: &str,
        session_id: &str,
        body: &serde_json::Value,
        on_active: Option<OnActive>,
        idempotency_key: Option<&str>,
    ) -> AcceptedTurn {
        let query = match on_active {
            Some(on_active) => format!("?background=true&on_active={on_active}"),
            None => "?background=true".to_owned(),
        };
        let mut request = self
            .client
            .post(self.url(&format!("/v1/sessions/{session_id}/messages{query}")))
            .bearer_auth(token)
            .header("accept", "application/json")
            .json(body);
        if let Some(key) = idempotency_key {
            request = request.header("idempotency-key", key);
        }
        let accepted = self.send(request).await;
        accepted.assert_status(202);
        serde_json::from_value(accepted.body.clone())
            .unwrap_or_else(|err| panic!("a 202 must carry an AcceptedTurn ({err}): {accepted}"))
    }

    /// `GET /v1/prompts/{prompt_id}/events`, after `Last-Event-ID` when given.
    pub async fn prompt_events(
        &self,
        token: &str,
        prompt_id: &str,
        last_event_id: Option<u64>,
    ) -> SseReader {
        let mut request = self
            .client
            .get(self.url(&format!("/v1/prompts/{prompt_id}/events")))
            .timeout(FEED_TIMEOUT)
            .bearer_auth(token);
        if let Some(last) = last_event_id {
            request = request.header("last-event-id", last.to_string());
        }
        let response = request
            .send()
            .await
            .unwrap_or_else(|err| panic!("opening the feed of {prompt_id}: {err}"));
        let reader = SseReader::new(response);
        assert_eq!(reader.status, 200, "the feed of {prompt_id} must open");
        reader
    }

    /// `GET /v1/prompts/{prompt_id}/events?after={after}` (the feed from after `seq`
    /// `after`; the query wins over `Last-Event-ID`).
    pub async fn prompt_events_after(&self, token: &str, prompt_id: &str, after: u64) -> SseReader {
        let response = self
            .client
            .get(self.url(&format!("/v1/prompts/{prompt_id}/events?after={after}")))
            .timeout(FEED_TIMEOUT)
            .bearer_auth(token)
            .send()
            .await
            .unwrap_or_else(|err| panic!("opening the feed of {prompt_id}: {err}"));
        let reader = SseReader::new(response);
        assert_eq!(reader.status, 200, "the feed of {prompt_id} must open");
        reader
    }

    /// A typed client (like [`TestApp::client_as`]) that also sends `headers` with every
    /// request, for headers no operation declares (e.g. `traceparent`).
    pub fn client_with_headers(&self, token: &str, headers: &[(&str, &str)]) -> Client {
        let mut map = HeaderMap::new();
        let mut bearer = HeaderValue::from_str(&format!("Bearer {token}"))
            .unwrap_or_else(|err| panic!("{token:?} cannot be a header value: {err}"));
        bearer.set_sensitive(true);
        map.insert(AUTHORIZATION, bearer);
        for (name, value) in headers {
            let name = HeaderName::from_bytes(name.as_bytes())
                .unwrap_or_else(|err| panic!("{name:?} cannot be a header name: {err}"));
            let value = HeaderValue::from_str(value)
                .unwrap_or_else(|err| panic!("{value:?} cannot be a header value: {err}"));
            map.insert(name, value);
        }
        let http = crate::http_client()
            .timeout(Duration::from_secs(30))
            .default_headers(map)
            .build()
            .expect("building the HTTP client");
        Client::new_with_client(&self.base_url, http)
    }

    /// `GET /v1/prompts/{prompt_id}` (asserted 200), as JSON.
    pub async fn prompt(&self, token: &str, prompt_id: &str) -> Value {
        let response = self
            .get(&format!("/v1/prompts/{prompt_id}"), Some(token))
            .await;
        response.assert_status(200);
        response.body.clone()
    }

    /// Polls `GET /v1/prompts/{prompt_id}` every 100 ms until its `state` is `state`;
    /// panics after `within`, naming the last state seen.
    pub async fn wait_for_prompt_state(
        &self,
        token: &str,
        prompt_id: &str,
        state: &str,
        within: Duration,
    ) -> Value {
        let deadline = Instant::now() + within;
        loop {
            let prompt = self.prompt(token, prompt_id).await;
            if prompt["state"] == state {
                return prompt;
            }
            assert!(
                Instant::now() < deadline,
                "prompt {prompt_id} did not become {state} within {within:?}: {prompt}"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Every message of a session (up to 100), oldest first.
    pub async fn session_messages(&self, token: &str, session_id: &str) -> Vec<Value> {
        let response = self
            .get(
                &format!("/v1/sessions/{session_id}/messages?limit=100"),
                Some(token),
            )
            .await;
        response.assert_status(200);
        response.body["items"]
            .as_array()
            .unwrap_or_else(|| panic!("no items: {response}"))
            .clone()
    }
}

/// The `prompt_id` of the first event.
pub fn prompt_id_of(events: &[SseEvent]) -> String {
    events
        .first()
        .and_then(|e| e.data["prompt_id"].as_str())
        .unwrap_or_else(|| panic!("no prompt_id in {events:?}"))
        .to_owned()
}

/// The text of every `text_delta`, joined.
pub fn text_of(events: &[SseEvent]) -> String {
    events
        .iter()
        .filter(|e| e.event == "text_delta")
        .map(|e| e.data["text"].as_str().unwrap_or_default())
        .collect()
}

/// The `event:` types, in order.
pub fn kinds_of(events: &[SseEvent]) -> Vec<&str> {
    events.iter().map(|e| e.event.as_str()).collect()
}

/// `seq` runs 1, 2, 3… without a gap; `id:` is the seq and `event:` the `type`.
#[track_caller]
pub fn assert_gap_free(events: &[SseEvent]) {
    let seqs: Vec<u64> = events.iter().map(SseEvent::seq).collect();
    let expected: Vec<u64> = (1..=events.len() as u64).collect();
    assert_eq!(seqs, expected, "seq is gap-free from 1");
    for event in events {
        assert_eq!(event.id, event.seq().to_string(), "id: is the seq");
        assert_eq!(
            event.data["type"],
            event.event.as_str(),
            "event: is the type"
        );
    }
}

/// One attempt that completed with one text block: `prompt_state in_progress`,
/// `block_start`, `text_delta`…, `block_stop`, `prompt_state completed`, `complete`.
#[track_caller]
pub fn assert_one_text_block_completed(events: &[SseEvent]) {
    let kinds = kinds_of(events);
    assert!(kinds.len() >= 6, "too few events: {kinds:?}");
    assert_eq!(kinds[..2], ["prompt_state", "block_start"], "{kinds:?}");
    assert_eq!(events[0].data["state"], "in_progress", "{events:?}");
    assert_eq!(events[1].data["block_type"], "text", "{events:?}");
    let stop = kinds
        .iter()
        .position(|k| *k == "block_stop")
        .unwrap_or_else(|| panic!("no block_stop: {kinds:?}"));
    assert!(stop > 2, "no text_delta before block_stop: {kinds:?}");
    assert!(
        kinds[2..stop].iter().all(|k| *k == "text_delta"),
        "{kinds:?}"
    );
    assert_eq!(kinds[stop + 1..], ["prompt_state", "complete"], "{kinds:?}");
    assert_eq!(events[stop + 1].data["state"], "completed", "{events:?}");
    let complete = &events[stop + 2].data;
    assert_eq!(
        complete["payload"]["message"],
        text_of(events).as_str(),
        "`complete` carries the streamed text"
    );
}

/// The mock's reply to `[[mock tokens=n …]]`: `t1 t2 … tn`.
pub fn mock_tokens(n: usize) -> String {
    (1..=n)
        .map(|i| format!("t{i}"))
        .collect::<Vec<_>>()
        .join(" ")
}
