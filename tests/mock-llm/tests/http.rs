//! The mock over real HTTP: reqwest requests, SSE bodies parsed line by line, and one pass
//! through async-openai (the client Parley's workers use) to prove the wire format.

use std::time::{Duration, Instant};

use parley_mock_llm::{MockConfig, MockLlm, Outcome, RecordedRequest};
use serde_json::{Value, json};

const MODEL: &str = parley_mock_llm::DEFAULT_MODEL;

/// One SSE event's `data`, or how the body ended.
#[derive(Debug, PartialEq)]
enum Item {
    Data(String),
    /// The body ended cleanly.
    End,
    /// Reading the body failed (connection dropped).
    BodyError,
}

/// Reads an SSE body event by event.
struct Sse {
    response: reqwest::Response,
    buffer: String,
}

impl Sse {
    fn new(response: reqwest::Response) -> Self {
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"].to_str().expect("ascii");
        assert!(
            content_type.starts_with("text/event-stream"),
            "{content_type}"
        );
        Self {
            response,
            buffer: String::new(),
        }
    }

    async fn next(&mut self) -> Item {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let event: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = event
                    .lines()
                    .filter_map(|l| l.strip_prefix("data:"))
                    .map(|d| d.strip_prefix(' ').unwrap_or(d))
                    .collect();
                return Item::Data(data.join("\n"));
            }
            match self.response.chunk().await {
                Ok(Some(bytes)) => self
                    .buffer
                    .push_str(std::str::from_utf8(&bytes).expect("utf-8")),
                Ok(None) => {
                    assert!(self.buffer.is_empty(), "trailing bytes: {:?}", self.buffer);
                    return Item::End;
                }
                Err(_) => return Item::BodyError,
            }
        }
    }

    /// The next event as JSON (panics on anything else).
    async fn chunk(&mut self) -> Value {
        match self.next().await {
            Item::Data(d) => serde_json::from_str(&d).unwrap_or_else(|e| panic!("{e}: {d}")),
            other => panic!("expected a chunk, got {other:?}"),
        }
    }

    /// Every remaining event until the body ends, and how it ended.
    async fn rest(&mut self) -> (Vec<String>, Item) {
        let mut data = Vec::new();
        loop {
            match self.next().await {
                Item::Data(d) => data.push(d),
                end => return (data, end),
            }
        }
    }
}

/// The whole stream: the chunks (parsed), whether `[DONE]` closed it, and how it ended.
async fn stream_all(sse: &mut Sse) -> (Vec<Value>, bool, Item) {
    let (data, end) = sse.rest().await;
    let done = data.last().is_some_and(|d| d == "[DONE]");
    let chunks = data
        .iter()
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str(d).expect("a JSON chunk"))
        .collect();
    (chunks, done, end)
}

fn content(chunks: &[Value]) -> Vec<String> {
    delta_texts(chunks, "content")
}

/// The non-empty `delta.<field>` strings of the chunks, in order.
fn delta_texts(chunks: &[Value], field: &str) -> Vec<String> {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"][field].as_str())
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}

/// A client, after the process's one rustls provider is installed (reqwest and
/// async-openai carry none of their own in this build).
fn http_client() -> reqwest::Client {
    install_tls();
    reqwest::Client::new()
}

fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

async fn post(mock: &MockLlm, body: Value) -> reqwest::Response {
    http_client()
        .post(format!("{}/chat/completions", mock.base_url()))
        .json(&body)
        .send()
        .await
        .expect("the mock answers")
}

/// A streaming request with usage, from one user message.
async fn stream(mock: &MockLlm, user: &str) -> Sse {
    Sse::new(
        post(
            mock,
            json!({
                "model": MODEL,
                "stream": true,
                "stream_options": { "include_usage": true },
                "messages": [{ "role": "user", "content": user }],
            }),
        )
        .await,
    )
}

async fn last_request(mock: &MockLlm, outcome: Outcome) -> RecordedRequest {
    let log = mock
        .wait_for(Duration::from_secs(5), |r| {
            r.last().is_some_and(|r| r.outcome == outcome)
        })
        .await
        .unwrap_or_else(|| panic!("no request ended {outcome:?}: {:#?}", mock.requests()));
    log.last().cloned().expect("a request")
}

/// One tool call of an answer, put together from its chunks (names and arguments
/// concatenated per `index`, as a client must).
#[derive(Debug, Default, Clone, PartialEq)]
struct Call {
    id: String,
    name: String,
    arguments: String,
}

/// An answer, streamed or not, reduced to what a client keeps.
#[derive(Debug)]
struct Answer {
    content: String,
    calls: Vec<Call>,
    finish: String,
    completion_tokens: u64,
}

/// Sends `messages` (streaming with usage, or not) and reads the answer.
async fn ask(mock: &MockLlm, messages: &[Value], stream: bool) -> Answer {
    let response = post(
        mock,
        json!({
            "model": MODEL,
            "stream": stream,
            "stream_options": { "include_usage": true },
            "tools": [{ "type": "function", "function": { "name": "get_time" } }],
            "messages": messages,
        }),
    )
    .await;
    if !stream {
        assert_eq!(response.status(), 200);
        let body: Value = response.json().await.expect("a JSON body");
        let message = &body["choices"][0]["message"];
        let calls = message["tool_calls"]
            .as_array()
            .map(|calls| {
                calls
                    .iter()
                    .map(|c| Call {
                        id: string(&c["id"]),
                        name: string(&c["function"]["name"]),
                        arguments: string(&c["function"]["arguments"]),
                    })
                    .collect()
            })
            .unwrap_or_default();
        return Answer {
            content: message["content"].as_str().unwrap_or_default().into(),
            calls,
            finish: string(&body["choices"][0]["finish_reason"]),
            completion_tokens: number(&body["usage"]["completion_tokens"]),
        };
    }
    let (chunks, done, end) = stream_all(&mut Sse::new(response)).await;
    assert!(done && end == Item::End);
    let mut calls: Vec<Call> = Vec::new();
    for delta in chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].as_array())
    {
        for piece in delta {
            let index = usize::try_from(number(&piece["index"])).expect("a small index");
            if calls.len() <= index {
                calls.resize(index + 1, Call::default());
            }
            let call = &mut calls[index];
            if let Some(id) = piece["id"].as_str() {
                assert!(call.id.is_empty(), "a second id for call {index}");
                call.id = id.into();
            }
            call.name += piece["function"]["name"].as_str().unwrap_or_default();
            call.arguments += piece["function"]["arguments"].as_str().unwrap_or_default();
        }
    }
    let finish = chunks
        .iter()
        .find_map(|c| c["choices"][0]["finish_reason"].as_str())
        .expect("a finish reason");
    Answer {
        content: content(&chunks).concat(),
        calls,
        finish: finish.into(),
        completion_tokens: number(
            &chunks.last().expect("a usage chunk")["usage"]["completion_tokens"],
        ),
    }
}

fn string(value: &Value) -> String {
    value
        .as_str()
        .unwrap_or_else(|| panic!("a string: {value}"))
        .into()
}

fn number(value: &Value) -> u64 {
    value
        .as_u64()
        .unwrap_or_else(|| panic!("a number: {value}"))
}

/// Appends the assistant message of `answer` (its tool calls) and one `tool` message per
/// call, with the content `result(call)`.
fn add_round(messages: &mut Vec<Value>, answer: &Answer, result: impl Fn(&Call) -> String) {
    let calls: Vec<Value> = answer
        .calls
        .iter()
        .map(|c| json!({ "id": c.id, "type": "function", "function": { "name": c.name, "arguments": c.arguments } }))
        .collect();
    messages.push(json!({ "role": "assistant", "content": null, "tool_calls": calls }));
    for call in &answer.calls {
        messages.push(json!({ "role": "tool", "tool_call_id": call.id, "content": result(call) }));
    }
}

fn call(id: &str, name: &str, arguments: &str) -> Call {
    Call {
        id: id.into(),
        name: name.into(),
        arguments: arguments.into(),
    }
}

#[tokio::test]
async fn echo_stream_with_usage_and_the_request_log() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut sse = Sse::new(
        post(
            &mock,
            json!({
                "model": MODEL,
                "stream": true,
                "stream_options": { "include_usage": true },
                "tools": [
                    { "type": "function", "function": { "name": "get_time" } },
                    { "type": "function", "function": { "name": "get_weather", "parameters": {} } },
                ],
                "messages": [
                    { "role": "system", "content": "You are terse." },
                    { "role": "user", "content": "first question" },
                    { "role": "assistant", "content": "first answer" },
                    { "role": "user", "content": [{ "type": "text", "text": "hello  there world" }] },
                ],
            }),
        )
        .await,
    );
    let (chunks, done, end) = stream_all(&mut sse).await;
    assert!(done);
    assert_eq!(end, Item::End);
    let first = &chunks[0];
    assert_eq!(first["object"], "chat.completion.chunk");
    assert_eq!(first["model"], MODEL);
    assert_eq!(first["choices"][0]["delta"]["role"], "assistant");
    assert!(chunks.iter().all(|c| c["id"] == first["id"]));
    assert_eq!(content(&chunks), ["Echo:", " hello", " there", " world"]);
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "stop");
    let usage = chunks.last().unwrap();
    assert_eq!(usage["choices"], json!([]));
    // 3 + 2 + 2 + 3 words.
    assert_eq!(
        usage["usage"],
        json!({
            "prompt_tokens": 10, "completion_tokens": 4, "total_tokens": 14,
            "prompt_tokens_details": { "cached_tokens": 0 },
            "completion_tokens_details": { "reasoning_tokens": 0 },
        })
    );

    let request = last_request(&mock, Outcome::Completed).await;
    assert_eq!(request.model, MODEL);
    assert!(request.stream && request.include_usage);
    assert_eq!(request.system_prompt(), Some("You are terse."));
    assert_eq!(request.last_user_message(), Some("hello  there world"));
    assert_eq!(request.messages.len(), 4);
    assert_eq!(request.tools[0]["function"]["name"], "get_time");
    assert_eq!(request.tool_names(), ["get_time", "get_weather"]);
    assert!(request.tool_results().is_empty());
    assert_eq!(request.prompt_tokens, 10);
    assert_eq!(request.tokens_sent, 4);
    assert!(request.duration().is_some());
}

#[tokio::test]
async fn tokens_n_and_no_usage() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let (chunks, done, _) = stream_all(&mut stream(&mock, "hi [[mock tokens=5]]").await).await;
    assert!(done);
    assert_eq!(content(&chunks), ["t1", " t2", " t3", " t4", " t5"]);
    assert_eq!(chunks.last().unwrap()["usage"]["completion_tokens"], 5);

    let (chunks, done, _) =
        stream_all(&mut stream(&mock, "[[mock tokens=2 no_usage=1]]").await).await;
    assert!(done);
    assert_eq!(content(&chunks), ["t1", " t2"]);
    assert!(chunks.iter().all(|c| c.get("usage").is_none()));

    let (chunks, _, _) =
        stream_all(&mut stream(&mock, r#"[[mock reply="Hi, there" ]] [[mock x]]"#).await).await;
    assert_eq!(content(&chunks), ["Hi,", " there"]);
}

#[tokio::test]
async fn injected_http_errors() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let cases = [
        (500, "[[mock status=500]]"),
        (429, "[[mock status=429 retry_after=7]]"),
        (503, "[[mock status=503]]"),
    ];
    for (status, user) in cases {
        let response = post(
            &mock,
            json!({ "model": MODEL, "stream": true, "messages": [{ "role": "user", "content": user }] }),
        )
        .await;
        assert_eq!(response.status(), status);
        if status == 429 {
            assert_eq!(response.headers()["retry-after"], "7");
        }
        let body: Value = response.json().await.unwrap();
        assert!(body["error"]["message"].is_string(), "{body}");
        assert!(body["error"]["type"].is_string(), "{body}");
        assert_eq!(
            last_request(&mock, Outcome::Rejected(status))
                .await
                .tokens_sent,
            0
        );
    }
}

#[tokio::test]
async fn stall_after_sends_k_tokens_then_nothing_until_the_client_leaves() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut sse = stream(&mock, "one two three four [[mock stall_after=2]]").await;
    let _role = sse.chunk().await;
    let mut got = Vec::new();
    for _ in 0..2 {
        got.push(sse.chunk().await["choices"][0]["delta"]["content"].clone());
    }
    assert_eq!(got, ["Echo:", " one"]);
    let silent = tokio::time::timeout(Duration::from_millis(500), sse.next()).await;
    assert!(silent.is_err(), "expected silence, got {silent:?}");
    assert_eq!(mock.requests()[0].outcome, Outcome::InProgress);

    let left_at = Instant::now();
    drop(sse);
    let request = last_request(&mock, Outcome::ClientDisconnected).await;
    assert_eq!(request.tokens_sent, 2);
    let noticed = request.ended_at.unwrap().saturating_duration_since(left_at);
    assert!(noticed < Duration::from_secs(1), "{noticed:?}");
}

#[tokio::test]
async fn client_disconnect_mid_stream_is_recorded() {
    let mock = MockLlm::start(MockConfig {
        token_delay: Duration::from_millis(20),
        ..MockConfig::default()
    })
    .await;
    let mut sse = stream(&mock, "[[mock tokens=200]]").await;
    for _ in 0..4 {
        sse.chunk().await;
    }
    drop(sse);
    let request = last_request(&mock, Outcome::ClientDisconnected).await;
    assert!(
        (3..20).contains(&request.tokens_sent),
        "{}",
        request.tokens_sent
    );
}

#[tokio::test]
async fn cut_after_drops_the_connection_without_done() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut sse = stream(&mock, "one two three [[mock cut_after=2]]").await;
    let (data, end) = sse.rest().await;
    assert_eq!(end, Item::BodyError);
    assert!(!data.iter().any(|d| d == "[DONE]"));
    let chunks: Vec<Value> = data
        .iter()
        .map(|d| serde_json::from_str(d).expect("a JSON chunk"))
        .collect();
    assert_eq!(content(&chunks), ["Echo:", " one"]);
    assert_eq!(last_request(&mock, Outcome::Cut).await.tokens_sent, 2);
}

#[tokio::test]
async fn malformed_after_sends_one_bad_chunk() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut sse = stream(&mock, "a b [[mock malformed_after=1]]").await;
    let (data, end) = sse.rest().await;
    assert_eq!(end, Item::End);
    let parsed: Vec<Result<Value, _>> = data
        .iter()
        .filter(|d| *d != "[DONE]")
        .map(|d| serde_json::from_str::<Value>(d))
        .collect();
    // role, "Echo:", the bad one, " a", " b", finish, usage.
    let bad: Vec<usize> = (0..parsed.len()).filter(|&i| parsed[i].is_err()).collect();
    assert_eq!(bad, [2]);
    assert_eq!(data.last().unwrap(), "[DONE]");
}

#[tokio::test]
async fn reasoning_streams_before_content() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let mut sse = stream(&mock, "q [[mock reasoning=let_me_think reply=done]]").await;
    let (chunks, done, _) = stream_all(&mut sse).await;
    assert!(done);
    assert_eq!(
        delta_texts(&chunks, "reasoning_content"),
        ["let", " me", " think"]
    );
    assert_eq!(content(&chunks), ["done"]);
    let first_content = chunks
        .iter()
        .position(|c| c["choices"][0]["delta"]["content"] == "done")
        .unwrap();
    let last_reasoning = chunks
        .iter()
        .rposition(|c| c["choices"][0]["delta"]["reasoning_content"].is_string())
        .unwrap();
    assert!(last_reasoning < first_content);
    assert_eq!(chunks.last().unwrap()["usage"]["completion_tokens"], 4);
}

#[tokio::test]
async fn tool_call_streams_in_pieces_and_the_follow_up_echoes_the_result() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let args = r#"{"city": "Paris", "unit": "celsius"}"#;
    let user = format!("weather? [[mock tool_call='get_weather:{args}']]");
    let (chunks, done, _) = stream_all(&mut stream(&mock, &user).await).await;
    assert!(done);
    let calls: Vec<&Value> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .collect();
    assert!(calls.len() >= 3, "{calls:?}");
    assert_eq!(calls[0]["id"], "call_mock_0");
    assert_eq!(calls[0]["type"], "function");
    assert_eq!(calls[0]["function"]["name"], "get_weather");
    assert!(calls.iter().all(|c| c["index"] == 0));
    let reassembled: String = calls
        .iter()
        .filter_map(|c| c["function"]["arguments"].as_str())
        .collect();
    assert_eq!(reassembled, args);
    assert!(content(&chunks).is_empty());
    let finish = &chunks[chunks.len() - 2];
    assert_eq!(finish["choices"][0]["finish_reason"], "tool_calls");

    // The follow-up carrying the tool result gets a plain answer.
    let mut sse = Sse::new(
        post(
            &mock,
            json!({
                "model": MODEL,
                "stream": true,
                "messages": [
                    { "role": "user", "content": user },
                    { "role": "assistant", "content": null, "tool_calls": [{
                        "id": "call_mock_0", "type": "function",
                        "function": { "name": "get_weather", "arguments": args },
                    }] },
                    { "role": "tool", "tool_call_id": "call_mock_0", "content": "18 C, sunny" },
                ],
            }),
        )
        .await,
    );
    let (chunks, done, _) = stream_all(&mut sse).await;
    assert!(done);
    assert_eq!(content(&chunks).concat(), "Tool result: 18 C, sunny");
    assert_eq!(
        chunks.last().unwrap()["choices"][0]["finish_reason"],
        "stop"
    );
    let request = last_request(&mock, Outcome::Completed).await;
    assert_eq!(
        request.messages[2].tool_call_id.as_deref(),
        Some("call_mock_0")
    );
    assert_eq!(request.messages[1].tool_calls.len(), 1);
}

#[tokio::test]
async fn tool_call_raw_sends_malformed_arguments_verbatim() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user =
        r#"[[mock tool_call_raw='broken:{"city": "Par' tool_call=ok:{"a":1} tool_call_raw=empty]]"#;
    for stream in [true, false] {
        let answer = ask(&mock, &[json!({ "role": "user", "content": user })], stream).await;
        assert_eq!(
            answer.calls,
            [
                call("call_mock_0", "broken", r#"{"city": "Par"#),
                call("call_mock_1", "ok", r#"{"a":1}"#),
                call("call_mock_2", "empty", ""),
            ],
            "stream: {stream}"
        );
        assert_eq!(answer.finish, "tool_calls");
        assert_eq!(answer.content, "");
        // Calls: 1 + 2 pieces, 1 + 1, 1 + 0.
        assert_eq!(answer.completion_tokens, 6);
    }

    // Malformed arguments need tool_call_raw; tool_call refuses them.
    let response = post(
        &mock,
        json!({ "model": MODEL, "messages": [{ "role": "user", "content": "[[mock tool_call=f:{nope}]]" }] }),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["code"], "mock_directive");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tool_call_raw")
    );
}

#[tokio::test]
async fn tool_rounds_repeat_the_calls_then_answer_in_words() {
    let mock = MockLlm::start(MockConfig::default()).await;
    for stream in [true, false] {
        let mut messages = vec![
            json!({ "role": "user", "content": "earlier [[mock tool_call=get_time]]" }),
            json!({ "role": "assistant", "content": "earlier answer" }),
            json!({ "role": "user", "content": "now [[mock tool_call=get_time tool_call_raw=bad:{ tool_rounds=3]]" }),
        ];
        for round in 1..=3 {
            let answer = ask(&mock, &messages, stream).await;
            let k = 2 * (round - 1);
            assert_eq!(
                answer.calls,
                [
                    call(&format!("call_mock_{k}"), "get_time", "{}"),
                    call(&format!("call_mock_{}", k + 1), "bad", "{"),
                ],
                "round {round}, stream: {stream}"
            );
            assert_eq!(answer.finish, "tool_calls");
            add_round(&mut messages, &answer, |c| format!("r{round}-{}", c.name));
        }
        let answer = ask(&mock, &messages, stream).await;
        assert!(answer.calls.is_empty(), "{answer:?}");
        assert_eq!(answer.finish, "stop");
        assert_eq!(
            answer.content,
            "Tool result: r1-get_time r1-bad r2-get_time r2-bad r3-get_time r3-bad"
        );
    }
    assert_eq!(mock.requests().len(), 8);

    // `reply` is the answer after the last round (and comes before the calls until then).
    let user = "[[mock tool_call=get_time tool_rounds=2 reply=done]]";
    let mut messages = vec![json!({ "role": "user", "content": user })];
    for _ in 0..2 {
        let answer = ask(&mock, &messages, true).await;
        assert_eq!((answer.content.as_str(), answer.calls.len()), ("done", 1));
        add_round(&mut messages, &answer, |_| "12:00".into());
    }
    let answer = ask(&mock, &messages, true).await;
    assert_eq!((answer.content.as_str(), answer.calls.len()), ("done", 0));

    let response = post(
        &mock,
        json!({ "model": MODEL, "messages": [{ "role": "user", "content": "[[mock tool_call=f tool_rounds=0]]" }] }),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("tool_rounds=0")
    );
}

#[tokio::test]
async fn follow_up_reply_has_every_tool_result_in_order() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let messages = [
        json!({ "role": "system", "content": "Use tools." }),
        json!({ "role": "user", "content": "before" }),
        json!({ "role": "assistant", "content": null, "tool_calls": [{
            "id": "old", "type": "function", "function": { "name": "get_time", "arguments": "{}" },
        }] }),
        json!({ "role": "tool", "tool_call_id": "old", "content": "not this one" }),
        json!({ "role": "assistant", "content": "it is noon" }),
        json!({ "role": "user", "content": "two things [[mock tool_call=get_time tool_call=get_weather]]" }),
        json!({ "role": "assistant", "content": null, "tool_calls": [
            { "id": "call_mock_0", "type": "function", "function": { "name": "get_time", "arguments": "{}" } },
            { "id": "call_mock_1", "type": "function", "function": { "name": "get_weather", "arguments": "{}" } },
        ] }),
        json!({ "role": "tool", "tool_call_id": "call_mock_0", "content": "12:00" }),
        json!({ "role": "tool", "tool_call_id": "call_mock_1",
                "content": [{ "type": "text", "text": "Error: invalid arguments:" }, { "type": "text", "text": "missing  `city`" }] }),
    ];
    for stream in [true, false] {
        let answer = ask(&mock, &messages, stream).await;
        assert!(answer.calls.is_empty());
        assert_eq!(answer.finish, "stop");
        assert_eq!(
            answer.content,
            "Tool result: 12:00 Error: invalid arguments: missing `city`"
        );
        let request = last_request(&mock, Outcome::Completed).await;
        assert_eq!(
            request.tool_results(),
            ["12:00", "Error: invalid arguments:\nmissing  `city`"]
        );
        assert_eq!(request.tool_names(), ["get_time"]);
    }
}

#[tokio::test]
async fn split_name_streams_each_name_in_two_chunks() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let user = r#"[[mock tool_call=get_weather:{"city":"Paris"} tool_call=f split_name]]"#;
    let (chunks, done, _) = stream_all(&mut stream(&mock, user).await).await;
    assert!(done);
    let pieces: Vec<(u64, &str)> = chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0))
        .filter_map(|c| Some((c["index"].as_u64()?, c["function"]["name"].as_str()?)))
        .collect();
    assert_eq!(pieces, [(0, "get_we"), (0, "ather"), (1, "f"), (1, "")]);
    // The second half comes right after the first, with neither id nor arguments.
    let second = &chunks[2]["choices"][0]["delta"]["tool_calls"][0];
    assert_eq!(
        second,
        &json!({ "index": 0, "function": { "name": "ather" } })
    );

    let messages = [json!({ "role": "user", "content": user })];
    for stream in [true, false] {
        let answer = ask(&mock, &messages, stream).await;
        assert_eq!(
            answer.calls,
            [
                call("call_mock_0", "get_weather", r#"{"city":"Paris"}"#),
                call("call_mock_1", "f", "{}"),
            ]
        );
        // (1 + 1 + 2 argument pieces) + (1 + 1 + 1), streamed or not.
        assert_eq!(answer.completion_tokens, 7);
    }

    let response = post(
        &mock,
        json!({ "model": MODEL, "messages": [{ "role": "user", "content": "[[mock split_name]]" }] }),
    )
    .await;
    assert_eq!(response.status(), 400);
}

#[tokio::test]
async fn request_errors_and_models() {
    let mock = MockLlm::start(MockConfig {
        models: vec!["a".into(), "b".into()],
        ..MockConfig::default()
    })
    .await;
    let response = post(
        &mock,
        json!({ "model": "gpt-nope", "stream": true, "messages": [{ "role": "user", "content": "x" }] }),
    )
    .await;
    assert_eq!(response.status(), 404);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");
    assert_eq!(body["error"]["code"], "model_not_found");
    assert!(
        body["error"]["message"]
            .as_str()
            .unwrap()
            .contains("gpt-nope")
    );

    let client = http_client();
    let url = format!("{}/chat/completions", mock.base_url());
    let response = client.post(&url).body("{not json").send().await.unwrap();
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"]["type"], "invalid_request_error");

    let response = post(
        &mock,
        json!({ "model": "a", "messages": [{ "role": "user", "content": "[[mock tokns=3]]" }] }),
    )
    .await;
    assert_eq!(response.status(), 400);
    let body: Value = response.json().await.unwrap();
    assert!(body["error"]["message"].as_str().unwrap().contains("tokns"));

    let models: Value = client
        .get(format!("{}/models", mock.base_url()))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let ids: Vec<&str> = models["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["a", "b"]);
}

#[tokio::test]
async fn non_streaming_completion() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let response = post(
        &mock,
        json!({ "model": MODEL, "messages": [{ "role": "user", "content": "hi you [[mock reasoning=hmm]]" }] }),
    )
    .await;
    assert_eq!(response.status(), 200);
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["object"], "chat.completion");
    let choice = &body["choices"][0];
    assert_eq!(choice["message"]["role"], "assistant");
    assert_eq!(choice["message"]["content"], "Echo: hi you");
    assert_eq!(choice["message"]["reasoning_content"], "hmm");
    assert_eq!(choice["finish_reason"], "stop");
    assert_eq!(
        body["usage"],
        json!({
            "prompt_tokens": 4, "completion_tokens": 4, "total_tokens": 8,
            "prompt_tokens_details": { "cached_tokens": 0 },
            "completion_tokens_details": { "reasoning_tokens": 1 },
        })
    );
    assert!(!last_request(&mock, Outcome::Completed).await.stream);

    // A stall without streaming never answers; giving up is recorded.
    let gave_up = http_client()
        .post(format!("{}/chat/completions", mock.base_url()))
        .timeout(Duration::from_millis(300))
        .json(&json!({ "model": MODEL, "messages": [{ "role": "user", "content": "[[mock stall_after=0]]" }] }))
        .send()
        .await;
    assert!(gave_up.is_err());
    last_request(&mock, Outcome::ClientDisconnected).await;
}

#[tokio::test]
async fn delays_apply() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let started = Instant::now();
    let mut sse = stream(
        &mock,
        "[[mock tokens=3 first_token_delay_ms=300 token_delay_ms=50]]",
    )
    .await;
    let _role = sse.chunk().await;
    let first = started.elapsed();
    assert!(first >= Duration::from_millis(300), "{first:?}");
    let (chunks, done, _) = stream_all(&mut sse).await;
    assert!(done);
    assert_eq!(content(&chunks).len(), 3);
    // The tokens after the first wait 50 ms each on the server's clock: measured from the
    // start, not from when this (possibly late) reader saw the role chunk.
    let all = started.elapsed();
    assert!(all >= Duration::from_millis(300 + 100), "{all:?}");
}

#[tokio::test]
async fn dropping_the_mock_stops_it() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let url = mock.base_url();
    let mut sse = stream(&mock, "[[mock stall_after=1]]").await;
    sse.chunk().await;
    drop(mock);
    assert_eq!(sse.rest().await.1, Item::BodyError);
    let refused = http_client().get(format!("{url}/models")).send().await;
    assert!(refused.is_err());
}

/// The wire format as async-openai reads it: typed chunks, usage, tool calls, and errors.
#[tokio::test]
async fn async_openai_reads_the_stream() {
    use async_openai::Client;
    use async_openai::config::OpenAIConfig;
    use async_openai::types::chat::{
        ChatCompletionRequestUserMessage, ChatCompletionStreamOptions, CreateChatCompletionRequest,
        FinishReason,
    };
    use futures::StreamExt;

    let mock = MockLlm::start(MockConfig::default()).await;
    install_tls();
    let client = Client::with_config(
        OpenAIConfig::new()
            .with_api_base(mock.base_url())
            .with_api_key("test"),
    );
    let request = |text: &str| CreateChatCompletionRequest {
        model: MODEL.into(),
        messages: vec![ChatCompletionRequestUserMessage::from(text).into()],
        // With the `byot` feature on (as in this workspace) create_stream does not set it.
        stream: Some(true),
        stream_options: Some(ChatCompletionStreamOptions {
            include_usage: Some(true),
            include_obfuscation: None,
        }),
        ..Default::default()
    };

    let mut stream = client
        .chat()
        .create_stream(request("hello world"))
        .await
        .unwrap();
    let (mut text, mut usage, mut finish) = (String::new(), None, None);
    while let Some(chunk) = stream.next().await {
        let chunk = chunk.unwrap();
        if let Some(choice) = chunk.choices.first() {
            text.push_str(choice.delta.content.as_deref().unwrap_or_default());
            finish = finish.or(choice.finish_reason);
        }
        usage = usage.or(chunk.usage);
    }
    assert_eq!(text, "Echo: hello world");
    assert_eq!(finish, Some(FinishReason::Stop));
    let usage = usage.unwrap();
    assert_eq!((usage.prompt_tokens, usage.completion_tokens), (2, 3));

    let mut stream = client
        .chat()
        .create_stream(request(r#"[[mock tool_call=add:{"a":1,"b":22}]]"#))
        .await
        .unwrap();
    let mut arguments = String::new();
    while let Some(chunk) = stream.next().await {
        for call in chunk.unwrap().choices[..]
            .iter()
            .flat_map(|c| c.delta.tool_calls.iter().flatten())
        {
            arguments.push_str(
                call.function
                    .as_ref()
                    .and_then(|f| f.arguments.as_deref())
                    .unwrap_or_default(),
            );
        }
    }
    assert_eq!(arguments, r#"{"a":1,"b":22}"#);

    // Split names and parallel calls, put together per index.
    let mut stream = client
        .chat()
        .create_stream(request(
            r#"[[mock tool_call=get_time tool_call_raw='add:{"a":' split_name]]"#,
        ))
        .await
        .unwrap();
    let mut calls = vec![(String::new(), String::new(), String::new()); 2];
    while let Some(chunk) = stream.next().await {
        for call in chunk.unwrap().choices[..]
            .iter()
            .flat_map(|c| c.delta.tool_calls.iter().flatten())
        {
            let (id, name, arguments) = &mut calls[call.index as usize];
            id.push_str(call.id.as_deref().unwrap_or_default());
            let function = call.function.as_ref().unwrap();
            name.push_str(function.name.as_deref().unwrap_or_default());
            arguments.push_str(function.arguments.as_deref().unwrap_or_default());
        }
    }
    let expected = [
        ("call_mock_0", "get_time", "{}"),
        ("call_mock_1", "add", r#"{"a":"#),
    ];
    let got: Vec<(&str, &str, &str)> = calls
        .iter()
        .map(|(i, n, a)| (i.as_str(), n.as_str(), a.as_str()))
        .collect();
    assert_eq!(got, expected);

    // A cut stream surfaces as an error item, not a clean end.
    let mut stream = client
        .chat()
        .create_stream(request("[[mock cut_after=1]]"))
        .await
        .unwrap();
    let mut items = Vec::new();
    while let Some(item) = stream.next().await {
        items.push(item.is_ok());
    }
    assert_eq!(items.last(), Some(&false), "{items:?}");

    let error = client
        .chat()
        .create_stream(request("[[mock status=429]]"))
        .await;
    assert!(error.is_err());

    // Dropping the stream (what a cancel does) closes the upstream connection promptly.
    let mut stream = client
        .chat()
        .create_stream(request("[[mock stall_after=1]]"))
        .await
        .unwrap();
    stream.next().await.unwrap().unwrap();
    drop(stream);
    let request = last_request(&mock, Outcome::ClientDisconnected).await;
    assert_eq!(request.tokens_sent, 1);
}

/// `POST /_mock/outage`: every completion request answers the status until the outage
/// ends, whatever it asks for; a malformed outage is refused.
#[tokio::test]
async fn an_outage_answers_every_request_with_its_status_until_it_ends() {
    let mock = MockLlm::start(MockConfig::default()).await;
    let root = mock.base_url().trim_end_matches("/v1").to_owned();
    let client = http_client();
    let outage = |body: Value| {
        client
            .post(format!("{root}/_mock/outage"))
            .json(&body)
            .send()
    };
    let refused = outage(json!({"status": 200, "for_ms": 10})).await.unwrap();
    assert_eq!(refused.status(), 400);
    let started = outage(json!({"status": 503, "for_ms": 400})).await.unwrap();
    assert_eq!(started.status(), 200);
    let during = post(
        &mock,
        json!({"model": MODEL, "stream": true, "messages": [{"role": "user", "content": "[[mock tokens=3]] hi"}]}),
    )
    .await;
    assert_eq!(during.status(), 503);
    let body: Value = during.json().await.unwrap();
    assert_eq!(body["error"]["type"], "server_error");
    tokio::time::sleep(std::time::Duration::from_millis(450)).await;
    let (chunks, done, _) = stream_all(&mut stream(&mock, "[[mock tokens=3]] hi").await).await;
    assert!(done, "answered again after the outage");
    assert_eq!(
        delta_texts(&chunks, "content")
            .concat()
            .split_whitespace()
            .count(),
        3
    );
}
