//! The caller's own functions on chat completions (#46 item 1): `tools` reach the model
//! beside the chat tool's functions; the model's call of one ends the completion with
//! `tool_calls` (`finish_reason: tool_calls`, streamed as OpenAI streams them) while the
//! turn waits; the next request, whose history ends with the `tool` result, continues
//! the same turn and the model reads the result. A call answered twice, a result for no
//! call, a function named like the chat tool's, a `tool_choice` of no function and the
//! options Parley does not offer are each a 400 naming the parameter; a forced
//! `tool_choice` makes the turn's first answer call, and `parallel_tool_calls: false`
//! one call at a time.

use parley_mock_llm::{MockConfig, MockLlm};
use parley_tests::{Backend, both_backends};
use serde_json::{Value, json};

use crate::openai_surface::Surface;
use parley_tests::turns::mock_provider_config;

const ASKS: &str = r#"[[mock tool_call='lookup:{"word": "gato"}']] what is gato?"#;

fn tools() -> Value {
    json!([{
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Looks a word up in the caller's dictionary.",
            "parameters": {
                "type": "object",
                "properties": {"word": {"type": "string"}},
                "required": ["word"],
            },
        },
    }])
}

fn asking(model: &str) -> Value {
    json!({
        "model": model,
        "messages": [{"role": "user", "content": ASKS}],
        "tools": tools(),
    })
}

/// The data of each `data:` event of a streamed completion but `[DONE]`.
fn chunks(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .filter(|data| *data != "[DONE]")
        .map(|data| serde_json::from_str(data).expect("a chunk is JSON"))
        .collect()
}

fn finish_reasons(chunks: &[Value]) -> Vec<String> {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["finish_reason"].as_str().map(str::to_owned))
        .collect()
}

fn content(chunks: &[Value]) -> String {
    chunks
        .iter()
        .filter_map(|c| c["choices"][0]["delta"]["content"].as_str())
        .collect()
}

/// The history a stateless client sends back: its question, the call, and `result`.
fn answered(model: &str, call: &Value, result: &str) -> Value {
    json!({
        "model": model,
        "messages": [
            {"role": "user", "content": ASKS},
            {"role": "assistant", "content": null, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": call["id"], "content": result},
        ],
        "tools": tools(),
    })
}

pub(crate) fn tool_results(mock: &MockLlm) -> Vec<String> {
    let requests = mock.requests();
    let last = requests.last().expect("the model was called");
    last.tool_results().iter().map(|r| r.to_string()).collect()
}

pub(crate) async fn surface(backend: Backend) -> Surface {
    let mock = MockLlm::start(MockConfig::default()).await;
    let config = mock_provider_config(&mock.base_url(), "");
    Surface::start(backend, mock, config, "caller@example.com").await
}

both_backends!(
    a_call_of_the_callers_function_comes_back_as_tool_calls_and_its_result_continues_the_turn,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let asked = s.post("/openai/v1/chat/completions", &asking("auto")).await;
        asked.assert_status(200);
        let choice = &asked.body["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls", "{asked}");
        let call = choice["message"]["tool_calls"][0].clone();
        assert_eq!(call["type"], "function");
        assert_eq!(call["function"]["name"], "lookup");
        let arguments: Value =
            serde_json::from_str(call["function"]["arguments"].as_str().unwrap()).unwrap();
        assert_eq!(arguments, json!({"word": "gato"}));
        assert!(call["id"].as_str().unwrap().starts_with("call_"), "{call}");
        let offered = s.mock.requests()[0].tool_names();
        assert!(offered.iter().any(|n| n == "lookup"), "{offered:?}");

        let body = answered("auto", &call, "cat (a small domesticated feline)");
        let done = s.post("/openai/v1/chat/completions", &body).await;
        done.assert_status(200);
        let choice = &done.body["choices"][0];
        assert_eq!(choice["finish_reason"], "stop", "{done}");
        assert!(choice["message"]["tool_calls"].is_null(), "{done}");
        let text = choice["message"]["content"].as_str().unwrap();
        assert!(text.contains("small domesticated feline"), "{text}");
        assert!(
            !text.contains("> lookup"),
            "the call is not shown again: {text}"
        );
        assert_eq!(
            s.mock.requests().len(),
            2,
            "asked once, then given the result"
        );
        let results = tool_results(&s.mock);
        assert!(
            results.len() == 1 && results[0].contains("small domesticated feline"),
            "{results:?}"
        );
        assert_eq!(done.body["id"], asked.body["id"], "the same turn");

        // The call has its result: sending it again answers nothing.
        let again = s.post("/openai/v1/chat/completions", &body).await;
        again.assert_status(400);
        assert_eq!(again.body["error"]["code"], "invalid_parameter");
        assert_eq!(again.body["error"]["param"], "messages[2].tool_call_id");
    }
);

both_backends!(
    a_streamed_call_is_a_tool_calls_delta_and_the_continuation_streams_the_answer,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let mut body = asking("auto");
        body["stream"] = json!(true);
        body["stream_options"] = json!({"include_usage": true});
        let asked = s.post("/openai/v1/chat/completions", &body).await;
        asked.assert_status(200);
        assert!(asked.text.ends_with("data: [DONE]\n\n"), "{}", asked.text);
        let first = chunks(&asked.text);
        assert_eq!(finish_reasons(&first), ["tool_calls"], "{}", asked.text);
        let delta = first
            .iter()
            .find_map(|c| c["choices"][0]["delta"]["tool_calls"].get(0).cloned())
            .expect("a tool_calls delta");
        assert_eq!(delta["index"], 0);
        assert_eq!(delta["type"], "function");
        assert_eq!(delta["function"]["name"], "lookup");
        let call = json!({
            "id": delta["id"],
            "type": "function",
            "function": delta["function"],
        });

        let mut body = answered("auto", &call, "cat");
        body["stream"] = json!(true);
        let done = s.post("/openai/v1/chat/completions", &body).await;
        done.assert_status(200);
        let rest = chunks(&done.text);
        assert_eq!(finish_reasons(&rest), ["stop"], "{}", done.text);
        assert!(content(&rest).contains("cat"), "{}", done.text);
        assert!(
            rest.iter()
                .all(|c| c["choices"][0]["delta"]["tool_calls"].is_null()),
            "{}",
            done.text
        );
        // What the continuation streamed is the stored answer's text after the call.
        let stored = s
            .app
            .get(done.header("location").expect("the prompt"), Some(&s.token))
            .await;
        stored.assert_status(200);
        assert_eq!(stored.body["state"], "completed", "{stored}");
    }
);

both_backends!(
    functions_parley_cannot_take_and_results_for_no_call_are_refused_by_name,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let timed = s
            .tool(
                "Clock",
                json!({"behavior": "Tell the time.", "functions": ["getCurrentTime"]}),
            )
            .await;
        let mut clash = asking(&timed);
        clash["tools"][0]["function"]["name"] = json!("getCurrentTime");
        let refused = s.post("/openai/v1/chat/completions", &clash).await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["code"], "invalid_parameter",
            "{refused}"
        );
        assert_eq!(refused.body["error"]["param"], "tools");
        assert!(refused.text.contains("getCurrentTime"), "{refused}");
        let listed = s.app.get("/v1/sessions?limit=100", Some(&s.token)).await;
        assert!(
            crate::fixtures::items(&listed).is_empty(),
            "a refused request leaves no conversation behind: {listed}"
        );

        for (value, code) in [
            (
                json!({"type": "function", "function": {"name": "define"}}),
                "invalid_parameter",
            ),
            (json!("always"), "invalid_parameter"),
            (json!({"type": "allowed_tools"}), "unsupported_parameter"),
        ] {
            let mut body = asking("auto");
            body["tool_choice"] = value;
            let refused = s.post("/openai/v1/chat/completions", &body).await;
            refused.assert_status(400);
            assert_eq!(refused.body["error"]["code"], code, "{refused}");
            assert_eq!(refused.body["error"]["param"], "tool_choice");
        }
        let mut body = asking("auto");
        body["tools"] = json!([]);
        body["tool_choice"] = json!("required");
        let refused = s.post("/openai/v1/chat/completions", &body).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "tool_choice", "{refused}");
        let mut web = asking("auto");
        web["tools"][0]["type"] = json!("web_search");
        let refused = s.post("/openai/v1/chat/completions", &web).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "tools[0].type");

        let made_up = json!({
            "id": "call_0190f1d2a3b44c5d8e9f0a1b2c3d4e5f",
            "type": "function",
            "function": {"name": "lookup", "arguments": "{}"},
        });
        let refused = s
            .post(
                "/openai/v1/chat/completions",
                &answered("auto", &made_up, "cat"),
            )
            .await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "messages[2].tool_call_id");
        assert_eq!(s.mock.requests().len(), 0, "nothing was asked");

        // `tool_choice: none`: the caller's functions are not offered.
        let mut none = asking("auto");
        none["tool_choice"] = json!("none");
        none["messages"][0]["content"] = json!("hello");
        s.post("/openai/v1/chat/completions", &none)
            .await
            .assert_status(200);
        let offered = s.mock.requests()[0].tool_names();
        assert!(!offered.iter().any(|n| n == "lookup"), "{offered:?}");
    }
);

both_backends!(
    a_forced_tool_choice_makes_the_first_answer_call_and_serial_calls_come_one_at_a_time,
    |backend: Backend| async move {
        let s = surface(backend).await;
        // No marker asks for a call: the named choice makes it.
        let mut body = asking("auto");
        body["messages"][0]["content"] = json!("what is gato?");
        // The mock's forced call has no arguments: `word` may be left out.
        let parameters = &mut body["tools"][0]["function"]["parameters"];
        parameters.as_object_mut().unwrap().remove("required");
        body["tool_choice"] = json!({"type": "function", "function": {"name": "lookup"}});
        let asked = s.post("/openai/v1/chat/completions", &body).await;
        asked.assert_status(200);
        let choice = &asked.body["choices"][0];
        assert_eq!(choice["finish_reason"], "tool_calls", "{asked}");
        let call = choice["message"]["tool_calls"][0].clone();
        assert_eq!(call["function"]["name"], "lookup");
        let first = s.mock.requests()[0].body.clone();
        assert_eq!(
            first["tool_choice"],
            json!({"type": "function", "function": {"name": "lookup"}}),
            "{first}"
        );
        // After the call the model is free to answer.
        let mut answer = answered("auto", &call, "cat");
        answer["messages"][0]["content"] = json!("what is gato?");
        let done = s.post("/openai/v1/chat/completions", &answer).await;
        done.assert_status(200);
        assert_eq!(done.body["choices"][0]["finish_reason"], "stop", "{done}");
        let second = s.mock.requests()[1].body.clone();
        assert!(second["tool_choice"].is_null(), "{second}");

        // Two calls asked, one allowed per answer.
        let mut body = asking("auto");
        body["messages"][0]["content"] = json!(
            "[[mock tool_call='lookup:{\"word\": \"gato\"}' tool_call='lookup:{\"word\": \"perro\"}']] two words"
        );
        body["parallel_tool_calls"] = json!(false);
        let asked = s.post("/openai/v1/chat/completions", &body).await;
        asked.assert_status(200);
        let calls = asked.body["choices"][0]["message"]["tool_calls"]
            .as_array()
            .unwrap()
            .clone();
        assert_eq!(calls.len(), 1, "{asked}");
        let last = s.mock.requests().last().unwrap().body.clone();
        assert_eq!(last["parallel_tool_calls"], json!(false), "{last}");
    }
);

both_backends!(
    a_forced_call_on_a_thinking_claude_is_made_without_thinking_through_the_turn,
    |backend: Backend| async move {
        // Anthropic refuses extended thinking beside a forced call, and a tool loop's
        // thinking must start with its first answer: the whole turn goes without it.
        let mock = MockLlm::start(MockConfig::default()).await;
        let config = parley_tests::turns::mock_anthropic_config(
            &mock.anthropic_base_url(),
            "thinking_budget_tokens = 1024",
            "",
        );
        let s = Surface::start(backend, mock, config, "caller@example.com").await;
        let mut body = asking("auto");
        body["tool_choice"] = json!("required");
        let asked = s.post("/openai/v1/chat/completions", &body).await;
        asked.assert_status(200);
        let call = asked.body["choices"][0]["message"]["tool_calls"][0].clone();
        assert_eq!(call["function"]["name"], "lookup", "{asked}");
        let done = s
            .post(
                "/openai/v1/chat/completions",
                &answered("auto", &call, "cat"),
            )
            .await;
        done.assert_status(200);
        assert_eq!(done.body["choices"][0]["finish_reason"], "stop", "{done}");
        let requests = s.mock.requests();
        assert_eq!(requests.len(), 2);
        assert_eq!(requests[0].body["tool_choice"], json!({"type": "any"}));
        for request in &requests {
            assert!(request.body["thinking"].is_null(), "{}", request.body);
        }
        assert!(requests[1].body["tool_choice"].is_null());
    }
);
