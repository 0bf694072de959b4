//! The Anthropic Messages endpoint: the event stream and the `Message`, the tool loop and
//! its pairing rules, prefills, `max_tokens`, and the faults (thinking is in
//! anthropic_thinking.rs, prompt caching in anthropic_cache.rs, request validation in
//! anthropic_validation.rs).

mod common;

use std::time::Duration;

use common::anthropic::{MODEL, ask, body, last, refused, results, said, thinking};
use common::{End, assemble, post_messages};
use parley_mock_llm::{Endpoint, MockConfig, MockLlm, Outcome};
use serde_json::{Value, json};

#[tokio::test]
async fn echo_stream_events_and_the_request_log() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut request = body(
        json!([{ "role": "user", "content": "hello  there world" }]),
        true,
    );
    request["system"] = "You are terse.".into();
    let response = post_messages(&mock, &request).await;
    assert_eq!(response.headers()["request-id"], "req_mock_1");
    let (events, end) = common::events(response).await;
    assert_eq!(end, End::Clean);
    let names: Vec<&str> = events.iter().filter_map(|e| e.name.as_deref()).collect();
    assert_eq!(
        names,
        [
            "message_start",
            "ping",
            "content_block_start",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_delta",
            "content_block_stop",
            "message_delta",
            "message_stop",
        ]
    );
    assert_eq!(
        events[0].json(),
        json!({ "type": "message_start", "message": {
            "id": "msg_mock_1", "type": "message", "role": "assistant", "content": [],
            "model": MODEL, "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": 6, "cache_creation_input_tokens": 0,
                       "cache_read_input_tokens": 0, "output_tokens": 0 },
        } })
    );
    assert_eq!(
        events[2].json(),
        json!({ "type": "content_block_start", "index": 0, "content_block": { "type": "text", "text": "" } })
    );
    assert_eq!(
        events[4].json(),
        json!({ "type": "content_block_delta", "index": 0, "delta": { "type": "text_delta", "text": " hello" } })
    );
    assert_eq!(
        events[8].json(),
        json!({ "type": "message_delta", "delta": { "stop_reason": "end_turn", "stop_sequence": null },
                "usage": { "output_tokens": 4 } })
    );
    let message = assemble(&events);
    assert_eq!(
        message["content"],
        json!([{ "type": "text", "text": "Echo: hello there world" }])
    );

    let logged = last(&mock).await;
    assert_eq!(logged.endpoint, Endpoint::Messages);
    assert_eq!(logged.outcome, Outcome::Completed);
    assert!(logged.stream);
    assert_eq!(logged.system_prompt(), Some("You are terse."));
    assert_eq!(logged.last_user_message(), Some("hello  there world"));
    assert_eq!((logged.prompt_tokens, logged.tokens_sent), (6, 4));
    assert_eq!(logged.body["max_tokens"], 4096);
}

#[tokio::test]
async fn the_message_is_the_stream_put_together() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = r#"[[mock reasoning=let_me_think reply=Checking. tool_call='get_weather:{"city": "Paris"}' tool_call=get_time]]"#;
    let messages = json!([{ "role": "user", "content": user }]);
    let streamed = ask(&mock, &thinking(body(messages.clone(), true))).await;
    let whole = ask(&mock, &thinking(body(messages, false))).await;
    assert_eq!(whole["id"], "msg_mock_2");
    for field in [
        "type",
        "role",
        "model",
        "content",
        "stop_reason",
        "stop_sequence",
        "usage",
    ] {
        assert_eq!(streamed[field], whole[field], "{field}");
    }
    let content = whole["content"].as_array().expect("content");
    assert_eq!(content[0]["type"], "thinking");
    assert_eq!(content[0]["thinking"], "let me think");
    assert!(
        !content[0]["signature"]
            .as_str()
            .expect("a signature")
            .is_empty()
    );
    assert_eq!(content[1], json!({ "type": "text", "text": "Checking." }));
    assert_eq!(
        content[2],
        json!({ "type": "tool_use", "id": "toolu_mock_0", "name": "get_weather", "input": { "city": "Paris" } })
    );
    assert_eq!(
        content[3],
        json!({ "type": "tool_use", "id": "toolu_mock_1", "name": "get_time", "input": {} })
    );
    assert_eq!(whole["stop_reason"], "tool_use");
    // 3 thinking words, 1 text word, (1 + 3 pieces) + (1 + 1 piece).
    assert_eq!(whole["usage"]["output_tokens"], 10);
    assert_eq!(last(&mock).await.tokens_sent, 10);
}

#[tokio::test]
async fn a_tool_loop_and_its_pairing_rules() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = json!({ "role": "user",
        "content": r#"weather? [[mock tool_call='get_weather:{"city": "Paris"}' tool_rounds=2]]"# });
    for stream in [true, false] {
        let mut request = body(json!([user]), stream);
        request["tools"] = json!([{ "name": "get_weather", "description": "The weather.",
            "input_schema": { "type": "object", "properties": { "city": { "type": "string" } } } }]);
        let first = ask(&mock, &request).await;
        assert_eq!(first["stop_reason"], "tool_use");
        assert_eq!(
            first["content"].as_array().map(Vec::len),
            Some(1),
            "no text: {first}"
        );
        assert_eq!(first["content"][0]["id"], "toolu_mock_0");

        let mut messages = vec![user.clone(), said(&first), results(&first, "18 C, sunny")];
        request["messages"] = json!(messages);
        let second = ask(&mock, &request).await;
        assert_eq!(second["content"][0]["id"], "toolu_mock_1");
        messages.extend([said(&second), results(&second, "19 C")]);
        request["messages"] = json!(messages);
        let answer = ask(&mock, &request).await;
        assert_eq!(answer["stop_reason"], "end_turn");
        assert_eq!(
            answer["content"][0]["text"],
            "Tool result: 18 C, sunny 19 C"
        );
        let logged = last(&mock).await;
        assert_eq!(logged.tool_results(), ["18 C, sunny", "19 C"]);
        assert_eq!(logged.tool_names(), ["get_weather"]);
        let roles: Vec<&str> = logged.messages.iter().map(|m| m.role.as_str()).collect();
        assert_eq!(roles, ["user", "assistant", "tool", "assistant", "tool"]);
        assert_eq!(logged.messages[1].tool_calls[0]["id"], "toolu_mock_0");

        // A tool_use without its tool_result right after.
        let mut bad = messages[..2].to_vec();
        bad.push(json!({ "role": "user", "content": "never mind" }));
        let (status, message) = refused(&mock, &body(json!(bad), stream)).await;
        assert_eq!(status, 400);
        assert_eq!(
            message,
            "messages.1: `tool_use` ids were found without `tool_result` blocks immediately \
             after: toolu_mock_0. Each `tool_use` block must have a corresponding `tool_result` \
             block in the next message."
        );
        // Text before the results: they are not "immediately after".
        let mut late = messages[..2].to_vec();
        let result = &messages[2]["content"][0];
        late.push(
            json!({ "role": "user", "content": [{ "type": "text", "text": "here" }, result] }),
        );
        let (_, message) = refused(&mock, &body(json!(late), stream)).await;
        assert!(
            message.starts_with("messages.1: `tool_use` ids were found"),
            "{message}"
        );
        // A result for a call that was not made.
        let mut extra = messages[..3].to_vec();
        extra[2]["content"]
            .as_array_mut()
            .expect("results")
            .push(json!({ "type": "tool_result", "tool_use_id": "toolu_other", "content": "x" }));
        let (_, message) = refused(&mock, &body(json!(extra), stream)).await;
        assert_eq!(
            message,
            "messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: \
             toolu_other. Each `tool_result` block must have a corresponding `tool_use` block in \
             the previous message."
        );
        assert_eq!(last(&mock).await.outcome, Outcome::Rejected(400));
    }
}

#[tokio::test]
async fn a_final_assistant_message_is_continued() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let messages = json!([
        { "role": "user", "content": "[[mock tokens=4]]" },
        { "role": "assistant", "content": "t1 t2" },
    ]);
    let message = ask(&mock, &body(messages, true)).await;
    assert_eq!(
        message["content"],
        json!([{ "type": "text", "text": " t3 t4" }])
    );
    assert_eq!(message["usage"]["output_tokens"], 2);
}

#[tokio::test]
async fn max_tokens_cuts_the_reply() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut request = body(
        json!([{ "role": "user", "content": "[[mock tokens=10]]" }]),
        true,
    );
    request["max_tokens"] = 3.into();
    let message = ask(&mock, &request).await;
    assert_eq!(message["content"][0]["text"], "t1 t2 t3");
    assert_eq!(
        (&message["stop_reason"], &message["usage"]["output_tokens"]),
        (&json!("max_tokens"), &json!(3))
    );
    // A call that does not fit is left out.
    request["messages"] = json!([{ "role": "user", "content": "[[mock reply=a_b tool_call=f]]" }]);
    request["max_tokens"] = 3.into();
    let message = ask(&mock, &request).await;
    assert_eq!(
        message["content"],
        json!([{ "type": "text", "text": "a b" }])
    );
    assert_eq!(message["stop_reason"], "max_tokens");
    request["max_tokens"] = 4.into();
    assert_eq!(ask(&mock, &request).await["stop_reason"], "tool_use");
}

#[tokio::test]
async fn injected_errors_have_anthropics_shape() {
    let mock = MockLlm::start(MockConfig::default()).await;
    for (user, status, kind) in [
        ("[[mock status=429 retry_after=3]]", 429, "rate_limit_error"),
        ("[[mock status=529]]", 529, "overloaded_error"),
        ("[[mock status=500]]", 500, "api_error"),
        ("[[mock status=503]]", 503, "api_error"),
        ("[[mock status=400]]", 400, "invalid_request_error"),
    ] {
        let response = post_messages(
            &mock,
            &body(json!([{ "role": "user", "content": user }]), true),
        )
        .await;
        assert_eq!(response.status(), status);
        if status == 429 {
            assert_eq!(response.headers()["retry-after"], "3");
        }
        let error: Value = response.json().await.expect("JSON");
        assert_eq!(error["type"], "error");
        assert_eq!(error["error"]["type"], kind, "{user}");
        assert_eq!(last(&mock).await.outcome, Outcome::Rejected(status));
    }
    let (status, message) = refused(
        &mock,
        &body(
            json!([{ "role": "user", "content": "[[mock tokns=1]]" }]),
            true,
        ),
    )
    .await;
    assert_eq!(status, 400);
    assert!(
        message.starts_with("mock directive:") && message.contains("tokns"),
        "{message}"
    );
}

#[tokio::test]
async fn error_after_sends_an_error_event_and_ends_the_stream() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = json!([{ "role": "user", "content": "a b c [[mock error_after=2]]" }]);
    let (events, end) = common::events(post_messages(&mock, &body(user.clone(), true)).await).await;
    assert_eq!(end, End::Clean);
    let error = events.last().expect("events");
    assert_eq!(error.name.as_deref(), Some("error"));
    assert_eq!(
        error.json(),
        json!({ "type": "error", "error": { "type": "overloaded_error", "message": "Overloaded" } })
    );
    let texts = events
        .iter()
        .filter(|e| e.data.contains("text_delta"))
        .count();
    assert_eq!(texts, 2);
    assert!(
        !events
            .iter()
            .any(|e| e.name.as_deref() == Some("message_stop"))
    );
    let logged = last(&mock).await;
    assert_eq!(
        (logged.outcome, logged.tokens_sent),
        (Outcome::Completed, 2)
    );
    // Without streaming: a 529.
    let (status, message) = refused(&mock, &body(user, false)).await;
    assert_eq!((status, message.as_str()), (529, "Overloaded"));
}

#[tokio::test]
async fn cut_stall_and_malformed_streams() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let request = |user: &str| body(json!([{ "role": "user", "content": user }]), true);
    let (events, end) =
        common::events(post_messages(&mock, &request("a b [[mock cut_after=1]]")).await).await;
    assert_eq!(end, End::Error);
    assert_eq!(
        events
            .iter()
            .filter(|e| e.data.contains("text_delta"))
            .count(),
        1
    );
    assert_eq!(last(&mock).await.outcome, Outcome::Cut);

    let (events, end) =
        common::events(post_messages(&mock, &request("a b [[mock malformed_after=1]]")).await)
            .await;
    assert_eq!(end, End::Clean);
    let bad: Vec<usize> = (0..events.len())
        .filter(|&i| serde_json::from_str::<Value>(&events[i].data).is_err())
        .collect();
    // message_start, ping, block start, "Echo:", then the bad one.
    assert_eq!(bad, [4]);
    assert_eq!(
        events.last().and_then(|e| e.name.as_deref()),
        Some("message_stop")
    );

    let mut response = post_messages(&mock, &request("a b [[mock stall_after=1]]")).await;
    let mut seen = String::new();
    while !seen.contains("text_delta") {
        let chunk = response.chunk().await.expect("a chunk").expect("more");
        seen.push_str(std::str::from_utf8(&chunk).expect("utf-8"));
    }
    let silent = tokio::time::timeout(Duration::from_millis(300), response.chunk()).await;
    assert!(silent.is_err(), "expected silence, got {silent:?}");
    drop(response);
    let logged = mock
        .wait_for(Duration::from_secs(5), |r| {
            r.last()
                .is_some_and(|r| r.outcome == Outcome::ClientDisconnected)
        })
        .await
        .expect("the client left");
    assert_eq!(logged.last().map(|r| r.tokens_sent), Some(1));
}

#[tokio::test]
async fn delays_apply() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = json!([{ "role": "user", "content": "[[mock tokens=3 first_token_delay_ms=200 token_delay_ms=50]]" }]);
    let started = std::time::Instant::now();
    let (events, _) = common::events(post_messages(&mock, &body(user, true)).await).await;
    assert_eq!(assemble(&events)["content"][0]["text"], "t1 t2 t3");
    assert!(
        started.elapsed() >= Duration::from_millis(300),
        "{:?}",
        started.elapsed()
    );
}
