//! Helpers for the Anthropic endpoint's tests: request bodies, answers read as `Message`s
//! (assembled from the stream when streaming), errors, and the tool loop's next messages.

use std::time::Duration;

use parley_mock_llm::{MockLlm, Outcome, RecordedRequest};
use serde_json::{Value, json};

use super::{End, assemble, events, post_messages};

pub const MODEL: &str = parley_mock_llm::DEFAULT_MODEL;

pub fn body(messages: Value, stream: bool) -> Value {
    json!({ "model": MODEL, "max_tokens": 4096, "stream": stream, "messages": messages })
}

pub fn thinking(mut body: Value) -> Value {
    body["thinking"] = json!({ "type": "enabled", "budget_tokens": 1024 });
    body
}

/// The message answering `body`: assembled from the stream when it streams.
pub async fn ask(mock: &MockLlm, body: &Value) -> Value {
    let response = post_messages(mock, body).await;
    assert_eq!(response.status(), 200, "{body}");
    if body["stream"] == true {
        let (events, end) = events(response).await;
        assert_eq!(end, End::Clean);
        assemble(&events)
    } else {
        response.json().await.expect("a Message")
    }
}

/// The error answering `body`: its status and `error.message`, after checking its shape.
pub async fn refused(mock: &MockLlm, body: &Value) -> (u16, String) {
    let response = post_messages(mock, body).await;
    let status = response.status().as_u16();
    assert!(status >= 400, "{body}");
    let request_id = response.headers()["request-id"]
        .to_str()
        .expect("ascii")
        .to_owned();
    let error: Value = response.json().await.expect("a JSON body");
    assert_eq!(error["type"], "error", "{error}");
    assert_eq!(error["request_id"], request_id.as_str());
    assert!(error["error"]["type"].is_string(), "{error}");
    let message = error["error"]["message"]
        .as_str()
        .expect("a message")
        .to_owned();
    (status, message)
}

pub async fn last(mock: &MockLlm) -> RecordedRequest {
    let log = mock
        .wait_for(Duration::from_secs(5), |r| {
            r.last().is_some_and(|r| r.outcome != Outcome::InProgress)
        })
        .await
        .expect("the last request ends");
    log.last().cloned().expect("a request")
}

/// The user message answering every `tool_use` of `assistant` with `result`.
pub fn results(assistant: &Value, result: &str) -> Value {
    let results: Vec<Value> = assistant["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter(|b| b["type"] == "tool_use")
        .map(|b| json!({ "type": "tool_result", "tool_use_id": b["id"], "content": result }))
        .collect();
    json!({ "role": "user", "content": results })
}

pub fn said(message: &Value) -> Value {
    json!({ "role": "assistant", "content": message["content"] })
}
