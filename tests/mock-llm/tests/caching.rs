//! Prompt caching on the chat endpoint: `prompt_tokens_details.cached_tokens` from the
//! longest prefix of whole messages an earlier request of the same model began with, with
//! OpenAI's minimum and increment (the Anthropic endpoint's caching is in anthropic_cache.rs).

mod common;

use std::collections::BTreeMap;

use common::{chat_chunks, post_chat};
use parley_mock_llm::{Dialect, MockConfig, MockLlm};
use serde_json::{Value, json};

/// A mock caching prefixes of 6 tokens or more, in steps of 4.
async fn mock() -> MockLlm {
    MockLlm::start(MockConfig {
        models: vec!["a".into(), "b".into(), "ds".into()],
        dialects: BTreeMap::from([("ds".to_owned(), Dialect::DeepSeek)]),
        cache_min_tokens: 6,
        cache_increment: 4,
        ..MockConfig::default()
    })
    .await
}

/// The usage of a streamed answer to `messages`.
async fn usage(mock: &MockLlm, model: &str, messages: &[Value], tools: Value) -> Value {
    let body = json!({
        "model": model, "stream": true, "stream_options": { "include_usage": true },
        "tools": tools, "messages": messages,
    });
    let chunks = chat_chunks(post_chat(mock, &body).await).await;
    chunks.last().expect("a usage chunk")["usage"].clone()
}

fn cached(usage: &Value) -> u64 {
    usage["prompt_tokens_details"]["cached_tokens"]
        .as_u64()
        .expect("cached_tokens")
}

fn user(text: &str) -> Value {
    json!({ "role": "user", "content": text })
}

fn assistant(text: &str) -> Value {
    json!({ "role": "assistant", "content": text })
}

#[tokio::test]
async fn a_growing_conversation_reads_its_earlier_prefix() {
    let mock = mock().await;
    let tools = json!([{ "type": "function", "function": { "name": "f" } }]);
    // system 4 words + user 3 words: below nothing cached yet.
    let mut messages = vec![
        json!({ "role": "system", "content": "you are a tutor" }),
        user("one two three"),
    ];
    let first = usage(&mock, "a", &messages, tools.clone()).await;
    assert_eq!(
        (first["prompt_tokens"].as_u64(), cached(&first)),
        (Some(7), 0)
    );

    messages.push(assistant("Echo: one two three"));
    messages.push(user("four five"));
    let second = usage(&mock, "a", &messages, tools.clone()).await;
    // The first request's 7 tokens are a prefix: 6 + 0·4.
    assert_eq!(
        (second["prompt_tokens"].as_u64(), cached(&second)),
        (Some(13), 6)
    );
    let logged = mock.requests().last().unwrap().clone();
    assert_eq!(
        (
            logged.prompt_tokens,
            logged.cached_tokens,
            logged.cache_creation_tokens
        ),
        (13, 6, 0)
    );

    messages.push(assistant("Echo: four five"));
    messages.push(user("six"));
    let third = usage(&mock, "a", &messages, tools.clone()).await;
    // 13 cached: 6 + 1·4 = 10.
    assert_eq!(
        (third["prompt_tokens"].as_u64(), cached(&third)),
        (Some(17), 10)
    );

    // The same prompt again: all of it.
    let again = usage(&mock, "a", &messages, tools.clone()).await;
    assert_eq!(cached(&again), 14);

    // A changed message in the middle: only the prefix before it.
    let mut edited = messages.clone();
    edited[2] = assistant("Echo: one two THREE");
    assert_eq!(cached(&usage(&mock, "a", &edited, tools.clone()).await), 6);

    // Other tools, or another model: nothing.
    assert_eq!(cached(&usage(&mock, "a", &messages, json!([])).await), 0);
    assert_eq!(
        cached(&usage(&mock, "b", &messages, tools.clone()).await),
        0
    );

    // Forgotten on request.
    mock.clear_cache();
    assert_eq!(cached(&usage(&mock, "a", &messages, tools).await), 0);
}

#[tokio::test]
async fn what_counts_in_a_prefix_and_what_is_remembered() {
    let mock = mock().await;
    let call = json!({ "role": "assistant", "content": null, "reasoning_content": "hm",
        "tool_calls": [{ "id": "c", "type": "function", "function": { "name": "f", "arguments": "{}" } }] });
    let messages = vec![
        user("a b c d e f g h"),
        call.clone(),
        json!({ "role": "tool", "tool_call_id": "c", "content": "r" }),
    ];
    usage(&mock, "a", &messages, Value::Null).await;
    let mut next = messages.clone();
    next.push(assistant("x"));
    assert_eq!(
        cached(&usage(&mock, "a", &next, Value::Null).await),
        6,
        "9 tokens, 6 + 0·4"
    );
    // The reasoning sent back is part of the message.
    let mut other = next.clone();
    other[1]["reasoning_content"] = "other".into();
    assert_eq!(
        cached(&usage(&mock, "a", &other, Value::Null).await),
        6,
        "only the user message (8 → 6)"
    );

    // A refused request writes nothing: DeepSeek refuses a call without its reasoning.
    let mut unreasoned = call.clone();
    unreasoned
        .as_object_mut()
        .unwrap()
        .remove("reasoning_content");
    let refused = vec![user("p q r s t u v w"), unreasoned, messages[2].clone()];
    let body = json!({ "model": "ds", "stream": true, "messages": refused });
    assert_eq!(post_chat(&mock, &body).await.status(), 400);
    let fine = vec![user("p q r s t u v w"), assistant("x"), user("y")];
    assert_eq!(cached(&usage(&mock, "ds", &fine, Value::Null).await), 0);
    assert_eq!(cached(&usage(&mock, "ds", &fine, Value::Null).await), 10);
}

#[tokio::test]
async fn openai_defaults_cache_from_1024_tokens_in_steps_of_128() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let model = parley_mock_llm::DEFAULT_MODEL;
    let long = vec!["w"; 1100].join(" ");
    let mut messages = vec![user(&long)];
    assert_eq!(
        cached(&usage(&mock, model, &messages, Value::Null).await),
        0
    );
    messages.push(assistant("ok"));
    messages.push(user("more"));
    let next = usage(&mock, model, &messages, Value::Null).await;
    assert_eq!(
        (cached(&next), next["prompt_tokens"].as_u64()),
        (1024, Some(1102))
    );
    // Short prompts never cache.
    let short = vec![user("a b"), assistant("c"), user("d")];
    usage(&mock, model, &short[..1], Value::Null).await;
    assert_eq!(cached(&usage(&mock, model, &short, Value::Null).await), 0);
}

#[tokio::test]
async fn deepseek_reports_hits_and_misses_beside_cached_tokens() {
    let mock = mock().await;
    let mut messages = vec![user("a b c d e f g")];
    usage(&mock, "ds", &messages, Value::Null).await;
    messages.push(json!({ "role": "assistant", "content": "Echo", "reasoning_content": "t" }));
    messages.push(user("h i"));
    let usage = usage(&mock, "ds", &messages, Value::Null).await;
    assert_eq!(cached(&usage), 6);
    assert_eq!(usage["prompt_cache_hit_tokens"], 6);
    assert_eq!(usage["prompt_cache_miss_tokens"], 4);
    assert_eq!(usage["prompt_tokens"], 10);
    // "Thinking about: h i" is 4 reasoning tokens.
    assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 4);
}
