//! Helpers shared by the test files: a client, JSON posts, and SSE bodies read event by
//! event (with their `event:` names, for the Anthropic endpoint).

#![allow(dead_code, reason = "each test file uses its own subset")]

pub mod anthropic;

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

/// `POST /v1/messages` with `x-api-key` and `anthropic-version`.
pub async fn post_messages(mock: &MockLlm, body: &Value) -> reqwest::Response {
    client()
        .post(format!("{}/v1/messages", mock.anthropic_base_url()))
        .header("x-api-key", "test-key")
        .header("anthropic-version", "2023-06-01")
        .json(body)
        .send()
        .await
        .expect("the mock answers")
}

/// A streamed message put together as an SDK does: the `message_start` message with its
/// content blocks filled from the deltas (`input` parsed from the `partial_json` pieces),
/// `stop_reason` and `usage.output_tokens` from `message_delta`. Panics on a malformed
/// sequence (a delta for another block than the open one, events after `message_stop`).
pub fn assemble(events: &[Event]) -> Value {
    let mut message = Value::Null;
    let mut open: Option<(u64, Value, String)> = None;
    let mut stopped = false;
    for event in events {
        assert!(!stopped, "an event after message_stop: {event:?}");
        let data = event.json();
        assert_eq!(event.name.as_deref(), data["type"].as_str(), "{event:?}");
        match data["type"].as_str().expect("a type") {
            "message_start" => message = data["message"].clone(),
            "ping" => {}
            "content_block_start" => {
                assert!(open.is_none(), "a block started inside another");
                let index = data["index"].as_u64().expect("an index");
                let blocks = message["content"].as_array().expect("content").len() as u64;
                assert_eq!(index, blocks, "blocks are numbered in order");
                open = Some((index, data["content_block"].clone(), String::new()));
            }
            "content_block_delta" => {
                let (index, block, json) = open.as_mut().expect("an open block");
                assert_eq!(data["index"].as_u64(), Some(*index));
                let delta = &data["delta"];
                let append = |block: &mut Value, field: &str, more: &Value| {
                    let joined = format!(
                        "{}{}",
                        block[field].as_str().unwrap_or_default(),
                        more.as_str().expect("a string")
                    );
                    block[field] = joined.into();
                };
                match delta["type"].as_str().expect("a delta type") {
                    "text_delta" => append(block, "text", &delta["text"]),
                    "thinking_delta" => append(block, "thinking", &delta["thinking"]),
                    "signature_delta" => block["signature"] = delta["signature"].clone(),
                    "input_json_delta" => {
                        json.push_str(delta["partial_json"].as_str().expect("a string"));
                    }
                    other => panic!("unknown delta {other}"),
                }
            }
            "content_block_stop" => {
                let (index, mut block, json) = open.take().expect("an open block");
                assert_eq!(data["index"].as_u64(), Some(index));
                if block["type"] == "tool_use" && !json.is_empty() {
                    block["input"] = serde_json::from_str(&json).expect("JSON input");
                }
                message["content"]
                    .as_array_mut()
                    .expect("content")
                    .push(block);
            }
            "message_delta" => {
                message["stop_reason"] = data["delta"]["stop_reason"].clone();
                message["stop_sequence"] = data["delta"]["stop_sequence"].clone();
                message["usage"]["output_tokens"] = data["usage"]["output_tokens"].clone();
            }
            "message_stop" => stopped = true,
            other => panic!("unexpected event {other}"),
        }
    }
    assert!(stopped, "no message_stop");
    message
}
