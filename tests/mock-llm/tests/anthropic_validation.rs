//! What `/v1/messages` refuses, with Anthropic's statuses, error types and messages:
//! headers, the body's fields and blocks, content rules, thinking settings.

mod common;

use common::{client, post_messages};
use parley_mock_llm::{MockConfig, MockLlm, Outcome};
use serde_json::{Value, json};

const MODEL: &str = parley_mock_llm::DEFAULT_MODEL;

fn valid() -> Value {
    json!({ "model": MODEL, "max_tokens": 2048, "messages": [{ "role": "user", "content": "hi" }] })
}

/// The status, error type and message of the answer to `body`.
async fn answer(mock: &MockLlm, body: &Value) -> (u16, String, String) {
    let response = post_messages(mock, body).await;
    let status = response.status().as_u16();
    let error: Value = response.json().await.expect("a JSON body");
    (
        status,
        error["error"]["type"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        error["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
    )
}

#[tokio::test]
async fn headers_are_required() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let url = format!("{}/v1/messages", mock.anthropic_base_url());
    let send = |key: Option<&str>, version: Option<&str>| {
        let mut request = client().post(&url).json(&valid());
        if let Some(key) = key {
            request = request.header("x-api-key", key);
        }
        if let Some(version) = version {
            request = request.header("anthropic-version", version);
        }
        request.send()
    };
    let cases = [
        (
            None,
            Some("2023-06-01"),
            401,
            "authentication_error",
            "x-api-key header is required",
        ),
        (
            Some("k"),
            None,
            400,
            "invalid_request_error",
            "anthropic-version: header is required",
        ),
        (
            Some("k"),
            Some("2024-01-01"),
            400,
            "invalid_request_error",
            "anthropic-version: unknown version `2024-01-01` (2023-06-01 or 2023-01-01)",
        ),
    ];
    for (key, version, status, kind, message) in cases {
        let response = send(key, version).await.expect("an answer");
        assert_eq!(response.status(), status);
        assert!(response.headers().contains_key("request-id"));
        let error: Value = response.json().await.expect("JSON");
        assert_eq!(
            (
                error["type"].as_str(),
                error["error"]["type"].as_str(),
                error["error"]["message"].as_str()
            ),
            (Some("error"), Some(kind), Some(message))
        );
        assert_eq!(
            mock.requests().last().map(|r| r.outcome),
            Some(Outcome::Rejected(status))
        );
    }
    let fine = send(Some("k"), Some("2023-01-01"))
        .await
        .expect("an answer");
    assert_eq!(fine.status(), 200);
    // Without the fields the log needs, not even logged.
    let before = mock.requests().len();
    let response = post_messages(&mock, &json!({ "max_tokens": 1 })).await;
    assert_eq!(response.status(), 400);
    assert_eq!(mock.requests().len(), before);
}

#[tokio::test]
async fn an_unknown_model_is_not_found() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut body = valid();
    body["model"] = "claude-nope".into();
    assert_eq!(
        answer(&mock, &body).await,
        (404, "not_found_error".into(), "model: claude-nope".into())
    );
}

/// Each case: a change to the valid body, and the message of the 400 it gets.
#[tokio::test]
async fn the_body_is_checked_field_by_field() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let image = |media: &str, data: &str| json!({ "type": "image", "source": { "type": "base64", "media_type": media, "data": data } });
    let user = |content: Value| json!([{ "role": "user", "content": content }]);
    let thinking = json!({ "type": "enabled", "budget_tokens": 1024 });
    let cache = json!({ "type": "ephemeral" });
    let text = |t: &str| json!({ "type": "text", "text": t, "cache_control": cache });
    let cases: Vec<(&str, Value, &str)> = vec![
        ("max_tokens", json!(null), "max_tokens: Field required"),
        (
            "max_tokens",
            json!(0),
            "max_tokens: Input should be greater than or equal to 1",
        ),
        (
            "stream",
            json!("yes"),
            "stream: Input should be a valid boolean",
        ),
        (
            "messages",
            json!([]),
            "messages: at least one message is required",
        ),
        (
            "messages",
            json!([{ "role": "system", "content": "x" }]),
            "messages.0.role: Input should be 'user' or 'assistant'",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": 3 }]),
            "messages.0.content: Input should be a valid string or a list of content blocks",
        ),
        (
            "messages",
            user(json!([{ "type": "video" }])),
            "messages.0.content.0: Input tag 'video' found using 'type' does not match any of the expected tags: 'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking'",
        ),
        (
            "messages",
            user(json!([{ "type": "tool_use", "id": "a", "name": "f", "input": {} }])),
            "messages.0.content.0: `tool_use` blocks are not allowed in `user` messages",
        ),
        (
            "messages",
            user(json!([{ "type": "text" }])),
            "messages.0.content.0.text: Field required",
        ),
        (
            "messages",
            user(json!([image("image/bmp", "AAAA")])),
            "messages.0.content.0.image.source.base64.media_type: Input should be 'image/jpeg', 'image/png', 'image/gif' or 'image/webp'",
        ),
        (
            "messages",
            user(json!([image("image/png", "data:image/png;base64,AAAA")])),
            "messages.0.content.0.image.source.base64.data: the data is not valid base64",
        ),
        (
            "messages",
            user(
                json!([{ "type": "document", "source": { "type": "base64", "media_type": "text/plain", "data": "AAAA" } }]),
            ),
            "messages.0.content.0.document.source.base64.media_type: Input should be 'application/pdf'",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": "" }]),
            "messages.0: all messages must have non-empty content except for the optional final assistant message",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": [] }, { "role": "user", "content": "b" }]),
            "messages.1: all messages must have non-empty content except for the optional final assistant message",
        ),
        (
            "messages",
            user(json!([{ "type": "text", "text": "" }, { "type": "text", "text": "x" }])),
            "messages: text content blocks must be non-empty",
        ),
        (
            "messages",
            user(json!([{ "type": "text", "text": " \n" }])),
            "messages: text content blocks must contain non-whitespace text",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": "So " }]),
            "messages: final assistant content cannot end with trailing whitespace",
        ),
        (
            "messages",
            user(
                json!([{ "type": "text", "text": "x", "cache_control": { "type": "persistent" } }]),
            ),
            "messages.0.content.0.cache_control.type: Input should be 'ephemeral'",
        ),
        (
            "messages",
            user(json!([
                text("a"),
                text("b"),
                text("c"),
                text("d"),
                text("e")
            ])),
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": [{ "type": "thinking", "thinking": "t", "signature": "s", "cache_control": cache }] }, { "role": "user", "content": "b" }]),
            "messages.1.content.0.thinking.cache_control: Extra inputs are not permitted",
        ),
        (
            "messages",
            json!([{ "role": "user", "content": "a" }, { "role": "assistant", "content": [{ "type": "thinking", "thinking": "t" }] }, { "role": "user", "content": "b" }]),
            "messages.1.content.0.thinking.signature: Field required",
        ),
        (
            "system",
            json!([{ "type": "image" }]),
            "system.0.type: Input should be 'text'",
        ),
        (
            "system",
            json!(5),
            "system: Input should be a valid string or a list of text blocks",
        ),
        (
            "tools",
            json!([{ "name": "f" }]),
            "tools.0.custom.input_schema: Field required",
        ),
        (
            "tools",
            json!([{ "name": "f g", "input_schema": { "type": "object" } }]),
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,64}$'",
        ),
        (
            "tools",
            json!([{ "name": "f", "input_schema": { "type": "object" } }, { "name": "f", "input_schema": { "type": "object" } }]),
            "tools: Tool names must be unique.",
        ),
        (
            "tools",
            json!([{ "type": "web_search_20250305", "name": "web_search" }]),
            "tools.0.type: `web_search_20250305`: the mock serves client tools only (`custom`)",
        ),
        (
            "thinking",
            json!({ "type": "enabled", "budget_tokens": 1000 }),
            "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024",
        ),
        (
            "thinking",
            json!({ "type": "enabled", "budget_tokens": 2048 }),
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#max-tokens-and-context-window-size",
        ),
        (
            "thinking",
            json!({ "type": "enabled" }),
            "thinking.enabled.budget_tokens: Field required",
        ),
    ];
    for (field, value, message) in cases {
        let mut body = valid();
        body[field] = value;
        let got = answer(&mock, &body).await;
        assert_eq!(
            got,
            (400, "invalid_request_error".to_owned(), message.to_owned()),
            "{body}"
        );
        assert_eq!(
            mock.requests().last().map(|r| r.outcome),
            Some(Outcome::Rejected(400))
        );
    }

    // Settings thinking refuses.
    let with_thinking = |field: &str, value: Value| {
        let mut body = valid();
        body["thinking"] = thinking.clone();
        body[field] = value;
        body
    };
    let docs = "Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking#feature-compatibility";
    for (body, message) in [
        (
            with_thinking("temperature", json!(0.2)),
            "`temperature` may only be set to 1 when thinking is enabled.",
        ),
        (
            with_thinking("top_k", json!(5)),
            "`top_k` may not be set when thinking is enabled.",
        ),
        (
            with_thinking("top_p", json!(0.5)),
            "`top_p` must be greater than or equal to 0.95 or unset when thinking is enabled.",
        ),
        (
            with_thinking("tool_choice", json!({ "type": "any" })),
            "Thinking may not be enabled when tool_choice forces tool use.",
        ),
    ] {
        let (status, _, got) = answer(&mock, &body).await;
        assert_eq!((status, got), (400, format!("{message} {docs}")));
    }

    // And what it accepts: every block kind, a tool with its schema and cache_control.
    let mut body = valid();
    body["thinking"] = thinking.clone();
    body["temperature"] = json!(1);
    body["system"] = json!([{ "type": "text", "text": "Be brief.", "cache_control": { "type": "ephemeral", "ttl": "1h" } }]);
    body["tools"] = json!([{ "name": "get-time_2", "description": "Time.", "input_schema": { "type": "object" }, "cache_control": cache }]);
    body["messages"] = user(json!([
        { "type": "text", "text": "look" },
        image("image/png", "iVBORw0KGgo="),
        { "type": "image", "source": { "type": "url", "url": "https://example.com/a.png" } },
        { "type": "document", "source": { "type": "base64", "media_type": "application/pdf", "data": "JVBERi0=" } },
        { "type": "document", "source": { "type": "text", "media_type": "text/plain", "data": "notes" } },
    ]));
    let response = post_messages(&mock, &body).await;
    assert_eq!(response.status(), 200);
}
