//! The chat endpoint's dialects: DeepSeek's thinking mode (reasoning on every reply,
//! `reasoning_content` required back in the tool loop) and Gemini's thought signatures.

mod common;

use std::collections::BTreeMap;

use common::{chat_chunks, delta_text, post_chat};
use parley_mock_llm::{Dialect, MockConfig, MockLlm, Outcome};
use serde_json::{Value, json};

async fn mock() -> MockLlm {
    MockLlm::start(MockConfig {
        models: vec!["plain".into(), "ds".into(), "gem".into()],
        dialects: BTreeMap::from([
            ("ds".to_owned(), Dialect::DeepSeek),
            ("gem".to_owned(), Dialect::Gemini),
        ]),
        ..MockConfig::default()
    })
    .await
}

fn request(model: &str, messages: &[Value], stream: bool) -> Value {
    json!({
        "model": model,
        "stream": stream,
        "stream_options": { "include_usage": true },
        "messages": messages,
    })
}

/// Sends the messages and returns the assistant message a client would append (content,
/// reasoning_content, tool_calls with whatever per-call fields came), and the usage.
async fn ask(mock: &MockLlm, model: &str, messages: &[Value], stream: bool) -> (Value, Value) {
    let response = post_chat(mock, &request(model, messages, stream)).await;
    assert_eq!(response.status(), 200);
    if !stream {
        let body: Value = response.json().await.expect("a JSON body");
        return (body["choices"][0]["message"].clone(), body["usage"].clone());
    }
    let chunks = chat_chunks(response).await;
    let mut calls: Vec<Value> = Vec::new();
    for piece in chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].as_array())
        .flatten()
    {
        let index = piece["index"].as_u64().expect("an index") as usize;
        if calls.len() <= index {
            calls.push(json!({ "type": "function", "function": { "name": "", "arguments": "" } }));
        }
        let call = &mut calls[index];
        if let Some(id) = piece.get("id") {
            call["id"] = id.clone();
        }
        if let Some(extra) = piece.get("extra_content") {
            call["extra_content"] = extra.clone();
        }
        for field in ["name", "arguments"] {
            let more = piece["function"][field].as_str().unwrap_or_default();
            let joined = format!(
                "{}{more}",
                call["function"][field].as_str().expect("a string")
            );
            call["function"][field] = joined.into();
        }
    }
    let mut message = json!({ "role": "assistant", "content": delta_text(&chunks, "content") });
    let reasoning = delta_text(&chunks, "reasoning_content");
    if !reasoning.is_empty() {
        message["reasoning_content"] = reasoning.into();
    }
    if !calls.is_empty() {
        message["tool_calls"] = calls.into();
    }
    (
        message,
        chunks.last().expect("a usage chunk")["usage"].clone(),
    )
}

/// The `tool` messages answering every call of `assistant`.
fn results(assistant: &Value) -> Vec<Value> {
    assistant["tool_calls"]
        .as_array()
        .expect("tool calls")
        .iter()
        .map(|c| json!({ "role": "tool", "tool_call_id": c["id"], "content": "12:00" }))
        .collect()
}

async fn refused(mock: &MockLlm, model: &str, messages: &[Value]) -> Value {
    let response = post_chat(mock, &request(model, messages, true)).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.expect("a JSON body");
    assert_eq!(
        mock.requests().last().expect("logged").outcome,
        Outcome::Rejected(400)
    );
    body
}

#[tokio::test]
async fn deepseek_reasons_on_every_reply_and_reports_its_cache_fields() {
    let mock = mock().await;
    for stream in [true, false] {
        let user = json!({ "role": "user", "content": "hello  there" });
        let (message, usage) = ask(&mock, "ds", &[user], stream).await;
        assert_eq!(message["reasoning_content"], "Thinking about: hello there");
        assert_eq!(message["content"], "Echo: hello there");
        assert_eq!(usage["completion_tokens_details"]["reasoning_tokens"], 4);
        assert_eq!(usage["completion_tokens"], 7);
        assert_eq!(usage["prompt_cache_hit_tokens"], 0);
        assert_eq!(usage["prompt_cache_miss_tokens"], 2);
        assert_eq!(usage["prompt_tokens_details"]["cached_tokens"], 0);
    }
    let user = json!({ "role": "user", "content": "q [[mock reasoning=mine reply=ok]]" });
    let (message, _) = ask(&mock, "ds", std::slice::from_ref(&user), true).await;
    assert_eq!(
        (&message["reasoning_content"], &message["content"]),
        (&json!("mine"), &json!("ok"))
    );
    // A plain model reasons only when told to.
    let (message, _) = ask(
        &mock,
        "plain",
        &[json!({ "role": "user", "content": "q" })],
        true,
    )
    .await;
    assert!(message.get("reasoning_content").is_none(), "{message}");
}

#[tokio::test]
async fn deepseek_refuses_a_tool_loop_without_its_reasoning_content() {
    let mock = mock().await;
    for stream in [true, false] {
        let earlier = [
            json!({ "role": "system", "content": "Be brief." }),
            json!({ "role": "user", "content": "before" }),
            // An earlier turn's call without reasoning: DeepSeek ignores it there.
            json!({ "role": "assistant", "content": null, "tool_calls": [{
                "id": "old", "type": "function", "function": { "name": "f", "arguments": "{}" } }] }),
            json!({ "role": "tool", "tool_call_id": "old", "content": "x" }),
            json!({ "role": "assistant", "content": "done before" }),
            json!({ "role": "user", "content": "now [[mock tool_call=get_time tool_rounds=2]]" }),
        ];
        let mut messages = earlier.to_vec();
        let (first, _) = ask(&mock, "ds", &messages, stream).await;
        assert_eq!(first["reasoning_content"], "Thinking about: now");
        assert_eq!(first["tool_calls"][0]["function"]["name"], "get_time");

        // Sent back without its reasoning: refused, naming the message's index.
        let mut stripped = first.clone();
        stripped
            .as_object_mut()
            .unwrap()
            .remove("reasoning_content");
        let mut bad = messages.clone();
        bad.push(stripped);
        bad.extend(results(&first));
        let body = refused(&mock, "ds", &bad).await;
        assert_eq!(
            body["error"]["message"],
            "Missing `reasoning_content` field in the assistant message at message index 6. \
             For more information, please refer to \
             https://api-docs.deepseek.com/guides/thinking_mode#tool-calls"
        );
        assert_eq!(body["error"]["type"], "invalid_request_error");
        // An empty string is missing too.
        bad[6]["reasoning_content"] = "".into();
        refused(&mock, "ds", &bad).await;

        // Sent back whole: round 2, then the answer; round 1 must still carry it.
        messages.push(first.clone());
        messages.extend(results(&first));
        let (second, _) = ask(&mock, "ds", &messages, stream).await;
        assert_eq!(second["tool_calls"][0]["id"], "call_mock_1");
        let mut without_second = messages.clone();
        without_second.push(
            json!({ "role": "assistant", "content": null, "tool_calls": second["tool_calls"] }),
        );
        without_second.extend(results(&second));
        let body = refused(&mock, "ds", &without_second).await;
        assert!(
            body["error"]["message"]
                .as_str()
                .unwrap()
                .contains("message index 8")
        );
        messages.push(second.clone());
        messages.extend(results(&second));
        let (answer, _) = ask(&mock, "ds", &messages, stream).await;
        assert_eq!(answer["content"], "Tool result: 12:00 12:00");
        let logged = mock.requests().last().unwrap().clone();
        assert_eq!(
            logged.messages[6].reasoning_content.as_deref(),
            Some("Thinking about: now")
        );
        assert_eq!(logged.messages[2].reasoning_content, None);
    }
    // A plain model takes the same follow-up without reasoning.
    let user = json!({ "role": "user", "content": "[[mock tool_call=f]]" });
    let (first, _) = ask(&mock, "plain", std::slice::from_ref(&user), true).await;
    let mut messages = vec![user, first.clone()];
    messages.extend(results(&first));
    ask(&mock, "plain", &messages, true).await;
}

#[tokio::test]
async fn gemini_signs_the_first_call_and_refuses_it_back_without_its_signature() {
    let mock = mock().await;
    let user = json!({ "role": "user",
        "content": r#"go [[mock tool_call='get_weather:{"city": "Paris"}' tool_call=get_time]]"# });

    // Streamed: the first chunk of the first call carries the signature, nothing else does.
    let response = post_chat(&mock, &request("gem", std::slice::from_ref(&user), true)).await;
    let chunks = chat_chunks(response).await;
    let pieces: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    let signed: Vec<usize> = (0..pieces.len())
        .filter(|&i| pieces[i].get("extra_content").is_some())
        .collect();
    assert_eq!(signed, [0]);
    let sig = pieces[0]["extra_content"]["google"]["thought_signature"]
        .as_str()
        .unwrap();
    assert!(!sig.is_empty());

    for stream in [true, false] {
        let (first, _) = ask(&mock, "gem", std::slice::from_ref(&user), stream).await;
        let calls = first["tool_calls"].as_array().unwrap();
        assert_eq!(
            calls[0]["extra_content"]["google"]["thought_signature"],
            sig
        );
        assert!(calls[1].get("extra_content").is_none());

        let follow_up = |first: &Value| {
            let mut messages = vec![
                json!({ "role": "system", "content": "s" }),
                user.clone(),
                first.clone(),
            ];
            messages.extend(results(first));
            messages
        };
        let mut unsigned = first.clone();
        unsigned["tool_calls"][0]
            .as_object_mut()
            .unwrap()
            .remove("extra_content");
        let body = refused(&mock, "gem", &follow_up(&unsigned)).await;
        assert_eq!(
            body,
            json!([{ "error": { "code": 400, "status": "INVALID_ARGUMENT", "message":
                "Function call is missing a thought_signature in functionCall parts. This is \
                 required for tools to work correctly, and missing thought_signature may lead to \
                 degraded model performance. Additional data, function call \
                 `default_api:get_weather` , position 2. Please refer to \
                 https://ai.google.dev/gemini-api/docs/thought-signatures for more details." } }])
        );
        // Altered arguments, or the signature moved to the other call: corrupted.
        let mut altered = first.clone();
        altered["tool_calls"][0]["function"]["arguments"] = r#"{"city": "Lyon"}"#.into();
        let body = refused(&mock, "gem", &follow_up(&altered)).await;
        assert_eq!(body[0]["error"]["message"], "Corrupted thought signature.");
        let mut swapped = first.clone();
        swapped["tool_calls"].as_array_mut().unwrap().swap(0, 1);
        swapped["tool_calls"][0]["extra_content"] = first["tool_calls"][0]["extra_content"].clone();
        let body = refused(&mock, "gem", &follow_up(&swapped)).await;
        assert_eq!(body[0]["error"]["message"], "Corrupted thought signature.");
        // Gemini's documented stand-in is accepted.
        let mut dummy = unsigned.clone();
        dummy["tool_calls"][0]["extra_content"] =
            json!({ "google": { "thought_signature": "skip_thought_signature_validator" } });
        ask(&mock, "gem", &follow_up(&dummy), stream).await;

        let (answer, _) = ask(&mock, "gem", &follow_up(&first), stream).await;
        assert_eq!(answer["content"], "Tool result: 12:00 12:00");
        assert!(answer.get("reasoning_content").is_none());
    }
    // Only the current turn is checked: an earlier turn's unsigned call is fine.
    let messages = [
        json!({ "role": "user", "content": "before" }),
        json!({ "role": "assistant", "content": null, "tool_calls": [{
            "id": "old", "type": "function", "function": { "name": "f", "arguments": "{}" } }] }),
        json!({ "role": "tool", "tool_call_id": "old", "content": "x" }),
        json!({ "role": "user", "content": "now" }),
    ];
    let (answer, _) = ask(&mock, "gem", &messages, true).await;
    assert_eq!(answer["content"], "Echo: now");
}

#[tokio::test]
async fn error_after_is_for_the_anthropic_endpoint() {
    let mock = mock().await;
    let user = json!({ "role": "user", "content": "[[mock error_after=1]]" });
    let response = post_chat(&mock, &request("plain", &[user], true)).await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "mock_directive");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("/v1/messages")
    );
    // Scoped to another model, it is no fault here.
    let user = json!({ "role": "user", "content": "hi [[mock error_after=1 model=claude]]" });
    let (message, _) = ask(&mock, "plain", &[user], true).await;
    assert_eq!(message["content"], "Echo: hi");
}
