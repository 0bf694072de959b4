//! Prompt caching and input tokens on `/v1/messages`: `cache_control` breakpoints, the
//! 20-block lookback, the minimum, what invalidates a prefix, and what counts as tokens.

mod common;

use common::{End, assemble, events, post_messages};
use parley_mock_llm::{MockConfig, MockLlm};
use serde_json::{Value, json};

const MODEL: &str = parley_mock_llm::DEFAULT_MODEL;

/// A mock caching prefixes of 5 tokens or more.
async fn mock() -> MockLlm {
    MockLlm::start(MockConfig {
        anthropic_cache_min_tokens: 5,
        ..MockConfig::default()
    })
    .await
}

fn cached(text: &str) -> Value {
    json!({ "type": "text", "text": text, "cache_control": { "type": "ephemeral" } })
}

fn user(content: Value) -> Value {
    json!({ "role": "user", "content": content })
}

/// (input_tokens, cache_creation_input_tokens, cache_read_input_tokens) of `message_start`,
/// checked against the request log; and the message.
async fn usage(mock: &MockLlm, body: Value) -> ((u64, u64, u64), Value) {
    let mut body = body;
    body["model"] = MODEL.into();
    body["stream"] = true.into();
    if body["max_tokens"].is_null() {
        body["max_tokens"] = 4096.into();
    }
    let (events, end) = events(post_messages(mock, &body).await).await;
    assert_eq!(end, End::Clean);
    let start = events[0].json();
    let usage = &start["message"]["usage"];
    let number = |field: &str| usage[field].as_u64().expect("a count");
    let got = (
        number("input_tokens"),
        number("cache_creation_input_tokens"),
        number("cache_read_input_tokens"),
    );
    let logged = mock.requests().last().cloned().expect("logged");
    assert_eq!(logged.prompt_tokens, got.0 + got.1 + got.2);
    assert_eq!(
        (logged.cache_creation_tokens, logged.cached_tokens),
        (got.1, got.2)
    );
    (got, assemble(&events))
}

#[tokio::test]
async fn a_system_breakpoint_is_written_then_read() {
    let mock = mock().await;
    let system = json!([cached("s1 s2 s3 s4 s5 s6")]);
    let first = json!({ "system": system, "messages": [user("hello there".into())] });
    assert_eq!(usage(&mock, first).await.0, (2, 6, 0));
    let second = json!({ "system": system, "messages": [user("other words here".into())] });
    assert_eq!(usage(&mock, second.clone()).await.0, (3, 0, 6));
    // Another model has caches of its own; clear_cache forgets.
    mock.clear_cache();
    assert_eq!(usage(&mock, second).await.0, (3, 6, 0));
}

#[tokio::test]
async fn a_moving_breakpoint_reads_the_previous_turn() {
    let mock = mock().await;
    let system = "s1 s2 s3 s4 s5 s6";
    let first = json!({ "system": system, "messages": [user(json!([cached("u1 u2")]))] });
    let ((input, creation, read), reply) = usage(&mock, first).await;
    assert_eq!((input, creation, read), (0, 8, 0));
    // Next turn: the breakpoint moves to the new last block; cache_control is no part of
    // the prefix, so the first turn's prefix (8 tokens) is read.
    let said = json!({ "role": "assistant", "content": reply["content"] });
    let second = json!({ "system": system, "messages": [
        user("u1 u2".into()), said, user(json!([cached("u3")])),
    ] });
    assert_eq!(usage(&mock, second).await.0, (0, 4, 8));
}

#[tokio::test]
async fn a_breakpoint_looks_back_twenty_blocks() {
    let mock = mock().await;
    let system = json!([cached("a b c d e")]);
    let seed = json!({ "system": system, "messages": [user("x".into())] });
    for (blocks, read) in [(19, 5), (20, 0)] {
        mock.clear_cache();
        assert_eq!(usage(&mock, seed.clone()).await.0, (1, 5, 0));
        // `blocks` words after the system; the breakpoint on the last is `blocks` positions
        // after the system's block.
        let mut content: Vec<Value> = (1..blocks)
            .map(|_| json!({ "type": "text", "text": "w" }))
            .collect();
        content.push(cached("w"));
        let body = json!({ "system": "a b c d e", "messages": [user(json!(content))] });
        let (_, creation, got) = usage(&mock, body).await.0;
        assert_eq!(got, read, "{blocks} blocks");
        assert_eq!(creation, 5 + blocks - read);
    }
}

#[tokio::test]
async fn short_prefixes_are_not_cached() {
    let mock = mock().await;
    let body = json!({ "system": [cached("s1 s2 s3 s4")], "messages": [user("u".into())] });
    assert_eq!(usage(&mock, body.clone()).await.0, (5, 0, 0));
    assert_eq!(usage(&mock, body).await.0, (5, 0, 0));
    // Anthropic's default minimum is 1024.
    let defaults = MockLlm::start(MockConfig::default()).await;
    let long = vec!["w"; 1000].join(" ");
    let body = json!({ "system": [cached(&long)], "messages": [user("u".into())] });
    assert_eq!(usage(&defaults, body).await.0, (1001, 0, 0));
}

#[tokio::test]
async fn changing_the_thinking_settings_invalidates_the_messages_only() {
    let mock = mock().await;
    let body = |thinking: Value| {
        json!({ "system": [cached("s1 s2 s3 s4 s5 s6")], "thinking": thinking, "max_tokens": 4096,
                "messages": [user(json!([cached("u1 u2 u3")]))] })
    };
    assert_eq!(usage(&mock, body(Value::Null)).await.0, (0, 9, 0));
    assert_eq!(usage(&mock, body(Value::Null)).await.0, (0, 0, 9));
    let enabled = json!({ "type": "enabled", "budget_tokens": 1024 });
    assert_eq!(usage(&mock, body(enabled)).await.0, (0, 3, 6));
}

#[tokio::test]
async fn earlier_thinking_is_dropped_and_the_current_turn_counts() {
    let mock = mock().await;
    let earlier = |assistant: Value| {
        json!({ "messages": [
            user("q1 q2 q3 q4 q5".into()),
            { "role": "assistant", "content": assistant },
            user(json!([cached("q6")])),
        ] })
    };
    let thought =
        json!({ "type": "thinking", "thinking": "many words of thought", "signature": "x" });
    let text = json!({ "type": "text", "text": "a1" });
    assert_eq!(
        usage(&mock, earlier(json!([thought, text]))).await.0,
        (0, 7, 0)
    );
    assert_eq!(usage(&mock, earlier(json!([text]))).await.0, (0, 0, 7));

    // The current turn's thinking counts: "Thinking about: x" (3) after the user's 3 words,
    // the tool input `{}` (1) and the result (1).
    let question = user("x [[mock tool_call=f]]".into());
    let thinking = json!({ "type": "enabled", "budget_tokens": 1024 });
    let (_, first) = usage(
        &mock,
        json!({ "thinking": thinking, "messages": [question] }),
    )
    .await;
    let said = json!({ "role": "assistant", "content": first["content"] });
    let result = user(
        json!([{ "type": "tool_result", "tool_use_id": first["content"][1]["id"], "content": "r" }]),
    );
    let follow_up = json!({ "thinking": thinking, "messages": [question, said, result] });
    assert_eq!(usage(&mock, follow_up).await.0, (8, 0, 0));
}

#[tokio::test]
async fn tools_media_and_tool_results_count() {
    let mock = mock().await;
    let tools = json!([{ "name": "f", "description": "Get the time.", "input_schema": { "type": "object" },
                         "cache_control": { "type": "ephemeral" } }]);
    let png = json!({ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo=" } });
    let pdf = json!({ "type": "document", "source": { "type": "base64", "media_type": "application/pdf", "data": "JVBERi0=" } });
    // The tool definition is 3 words (its description's), below the minimum: not cached.
    let body = json!({ "tools": tools, "messages": [user(json!([png, pdf, { "type": "text", "text": "a" }]))] });
    assert_eq!(usage(&mock, body).await.0, (3 + 100 + 500 + 1, 0, 0));
    // A tool_result with an image, and cache_control inside its content: a breakpoint.
    let call = json!({ "role": "assistant", "content": [{ "type": "tool_use", "id": "t1", "name": "f", "input": { "a": 1 } }] });
    let result = user(json!([{ "type": "tool_result", "tool_use_id": "t1",
        "content": [{ "type": "text", "text": "r1 r2", "cache_control": { "type": "ephemeral" } }, png] }]));
    let body = json!({ "messages": [user("q".into()), call, result] });
    // q (1) + input {"a":1} (1) + "r1 r2" (2) + the image (100).
    assert_eq!(usage(&mock, body.clone()).await.0, (0, 104, 0));
    assert_eq!(usage(&mock, body).await.0, (0, 0, 104));
}

#[tokio::test]
async fn breakpoints_are_counted_across_tools_system_and_messages() {
    let mock = mock().await;
    let tool = |name: &str| json!({ "name": name, "input_schema": { "type": "object" }, "cache_control": { "type": "ephemeral" } });
    let body = json!({ "model": MODEL, "max_tokens": 100,
        "tools": [tool("a"), tool("b")], "system": [cached("s"), cached("t")],
        "messages": [user(json!([cached("u")]))] });
    let response = post_messages(&mock, &body).await;
    assert_eq!(response.status(), 400);
    let error: Value = response.json().await.expect("JSON");
    assert_eq!(
        error["error"]["message"],
        "A maximum of 4 blocks with cache_control may be provided. Found 5."
    );
}
