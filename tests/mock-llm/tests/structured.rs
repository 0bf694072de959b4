//! Structured outputs on both endpoints: a request that asks for JSON gets a value of its
//! schema (streamed in pieces that assemble into it), a directive's reply wins, a
//! text-only model answers in words, and the formats each provider refuses are refused.

mod common;

use common::{anthropic, events, post_chat};
use parley_mock_llm::{MockConfig, MockLlm};
use serde_json::{Value, json};

const MODEL: &str = parley_mock_llm::DEFAULT_MODEL;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"city": {"type": "string"}, "days": {"type": "integer", "minimum": 2}},
        "required": ["city", "days"],
        "additionalProperties": false,
    })
}

fn chat(user: &str, stream: bool) -> Value {
    json!({
        "model": MODEL, "stream": stream,
        "messages": [{"role": "user", "content": user}],
        "response_format": {"type": "json_schema", "json_schema": {"name": "trip", "schema": schema(), "strict": true}},
    })
}

async fn content(mock: &MockLlm, body: &Value) -> String {
    let response = post_chat(mock, body).await;
    assert_eq!(response.status(), 200);
    let answer: Value = response.json().await.expect("a completion");
    answer["choices"][0]["message"]["content"]
        .as_str()
        .expect("its content")
        .to_owned()
}

#[tokio::test]
async fn the_chat_endpoint_answers_a_value_of_the_schema() {
    let mock = MockLlm::start(MockConfig {
        text_only: vec!["words-only".into()],
        models: vec![MODEL.into(), "words-only".into()],
        ..MockConfig::default()
    })
    .await;
    let value: Value =
        serde_json::from_str(&content(&mock, &chat("plan a trip", false)).await).unwrap();
    assert_eq!(value, json!({"city": "mock", "days": 2}));

    let (streamed, _) = events(post_chat(&mock, &chat("plan a trip", true)).await).await;
    let pieces: Vec<String> = streamed
        .iter()
        .filter(|e| e.data != "[DONE]")
        .filter_map(|e| {
            e.json()["choices"][0]["delta"]["content"]
                .as_str()
                .map(str::to_owned)
        })
        .filter(|piece| !piece.is_empty())
        .collect();
    assert!(pieces.len() > 1, "{pieces:?}");
    assert_eq!(
        serde_json::from_str::<Value>(&pieces.concat()).unwrap(),
        value
    );

    // A directive's reply wins (an answer that does not fit, for a test).
    let wrong = content(&mock, &chat("[[mock reply='{\"city\": 3}']] plan", false)).await;
    assert_eq!(wrong, r#"{"city": 3}"#);
    let mut words = chat("plan a trip", false);
    words["model"] = json!("words-only");
    assert_eq!(content(&mock, &words).await, "Echo: plan a trip");
    let object = json!({"model": MODEL, "messages": [{"role": "user", "content": "hi"}], "response_format": {"type": "json_object"}});
    assert!(
        serde_json::from_str::<Value>(&content(&mock, &object).await)
            .unwrap()
            .is_object()
    );

    for bad in [
        json!({"type": "json_schema", "json_schema": {"schema": schema()}}),
        json!({"type": "json_schema", "json_schema": {"name": "x", "schema": "no"}}),
        json!({"type": "yaml"}),
    ] {
        let mut body = chat("hi", false);
        body["response_format"] = bad.clone();
        let refused = post_chat(&mock, &body).await;
        assert_eq!(refused.status(), 400, "{bad}");
        let error: Value = refused.json().await.unwrap();
        assert_eq!(error["error"]["param"], "response_format", "{error}");
    }
}

#[tokio::test]
async fn the_messages_endpoint_answers_a_value_of_a_closed_schema() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut body = anthropic::body(json!([{"role": "user", "content": "plan a trip"}]), true);
    body["output_config"] = json!({"format": {"type": "json_schema", "schema": schema()}});
    let message = anthropic::ask(&mock, &body).await;
    let text = message["content"][0]["text"].as_str().unwrap();
    assert_eq!(
        serde_json::from_str::<Value>(text).unwrap(),
        json!({"city": "mock", "days": 2})
    );

    let mut open = schema();
    open.as_object_mut().unwrap().remove("additionalProperties");
    body["output_config"]["format"]["schema"] = open;
    let (status, message) = anthropic::refused(&mock, &body).await;
    assert_eq!(status, 400);
    assert!(message.contains("additionalProperties"), "{message}");
}
