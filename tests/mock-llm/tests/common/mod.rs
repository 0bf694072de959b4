//! Helpers shared by the test files: a client, JSON posts, and SSE bodies read event by
//! event (with their `event:` names, for the Anthropic endpoint).

#![allow(dead_code, reason = "each test file uses its own subset")]

use parley_mock_llm::MockLlm;
use serde_json::Value;

/// A client, after the process's one rustls provider is installed (reqwest carries none
/// of its own in this build).
pub fn client() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::new()
}

pub async fn post_chat(mock: &MockLlm, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/chat/completions", mock.base_url()))
        .json(body)
        .send()
        .await
        .expect("the mock answers")
}

/// One SSE event.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The `event:` line, if any.
    pub name: Option<String>,
    /// The `data:` lines, joined.
    pub data: String,
}

impl Event {
    /// The data as JSON (panics when it is not).
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or_else(|e| panic!("{e}: {}", self.data))
    }
}

/// How a body ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// Cleanly.
    Clean,
    /// With a body error (the connection was dropped).
    Error,
}

/// Reads a whole `text/event-stream` body.
pub async fn events(mut response: reqwest::Response) -> (Vec<Event>, End) {
    assert_eq!(response.status(), 200);
    let content_type = response.headers()["content-type"]
        .to_str()
        .expect("ascii")
        .to_owned();
    assert!(
        content_type.starts_with("text/event-stream"),
        "{content_type}"
    );
    let mut buffer = String::new();
    let mut out = Vec::new();
    let end = loop {
        match response.chunk().await {
            Ok(Some(bytes)) => buffer.push_str(std::str::from_utf8(&bytes).expect("utf-8")),
            Ok(None) => break End::Clean,
            Err(_) => break End::Error,
        }
        while let Some(at) = buffer.find("\n\n") {
            let raw: String = buffer.drain(..at + 2).collect();
            out.push(parse_event(&raw));
        }
    };
    if end == End::Clean {
        assert!(buffer.is_empty(), "trailing bytes: {buffer:?}");
    }
    (out, end)
}

fn parse_event(raw: &str) -> Event {
    let mut name = None;
    let mut data = Vec::new();
    for line in raw.lines() {
        if let Some(n) = line.strip_prefix("event:") {
            name = Some(n.trim().to_owned());
        } else if let Some(d) = line.strip_prefix("data:") {
            data.push(d.strip_prefix(' ').unwrap_or(d));
        }
    }
    Event {
        name,
        data: data.join("\n"),
    }
}

/// The chat chunks of a stream (without `[DONE]`), parsed.
pub async fn chat_chunks(response: reqwest::Response) -> Vec<Value> {
    let (events, end) = events(response).await;
    assert_eq!(end, End::Clean);
    assert_eq!(events.last().map(|e| e.data.as_str()), Some("[DONE]"));
    events[..events.len() - 1].iter().map(Event::json).collect()
}

/// The non-empty `delta.<field>` strings of chat chunks, joined.
pub fn delta_text(chunks: &[Value], field: &str) -> String {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"][field].as_str())
        .collect()
}
