//! The caller's own functions on the Responses API (#46 item 1): function `tools` reach
//! the model beside the chat tool's functions; the model's call of one is a
//! `function_call` output item that ends the response (`completed`) while the turn
//! waits; a request whose input ends with the call's `function_call_output` — after
//! `previous_response_id`, after the whole input sent back, or after an `item_reference`
//! to the call — continues the same turn as a new response, read again by its own id.
//! A result for no call, a result for another response's call, a `tool_choice` of no
//! function and the options Parley does not offer are each a 400 naming the parameter;
//! a named `tool_choice` and `parallel_tool_calls: false` reach the model and the
//! response shows them.

use parley_tests::both_backends;
use serde_json::{Value, json};

use crate::openai_tools::{surface, tool_results};

const ASKS: &str = r#"[[mock tool_call='lookup:{"word": "gato"}']] what is gato?"#;

fn tools() -> Value {
    json!([{
        "type": "function",
        "name": "lookup",
        "description": "Looks a word up in the caller's dictionary.",
        "parameters": {
            "type": "object",
            "properties": {"word": {"type": "string"}},
            "required": ["word"],
        },
    }])
}

fn asking() -> Value {
    json!({"model": "auto", "input": ASKS, "tools": tools()})
}

fn output_of(call_id: &Value, output: &str) -> Value {
    json!({"type": "function_call_output", "call_id": call_id, "output": output})
}

/// The one `function_call` of a response, checked.
fn the_call(response: &Value) -> Value {
    assert_eq!(response["status"], "completed", "{response}");
    let output = response["output"].as_array().expect("output");
    let calls: Vec<&Value> = output
        .iter()
        .filter(|item| item["type"] == "function_call")
        .collect();
    assert_eq!(calls.len(), 1, "{response}");
    assert!(
        !output.iter().any(|item| item["type"] == "mcp_call"),
        "the caller's function is not Parley's to run: {response}"
    );
    let call = calls[0].clone();
    assert_eq!(call["name"], "lookup");
    assert_eq!(call["status"], "completed");
    let arguments = call["arguments"].as_str().expect("arguments are text");
    let arguments: Value = serde_json::from_str(arguments).expect("arguments are JSON");
    assert_eq!(arguments, json!({"word": "gato"}));
    assert!(
        call["call_id"]
            .as_str()
            .is_some_and(|id| id.starts_with("call_"))
    );
    call
}

/// The text of a response's messages.
fn said(response: &Value) -> String {
    response["output"]
        .as_array()
        .expect("output")
        .iter()
        .filter(|item| item["type"] == "message")
        .flat_map(|item| item["content"].as_array().cloned().unwrap_or_default())
        .filter_map(|part| part["text"].as_str().map(str::to_owned))
        .collect()
}

/// Named events of a streamed response: (type, data).
fn stream_events(text: &str) -> Vec<(String, Value)> {
    text.split("\n\n")
        .filter_map(|event| {
            let kind = event.lines().find_map(|l| l.strip_prefix("event: "))?;
            let data = event.lines().find_map(|l| l.strip_prefix("data: "))?;
            Some((kind.to_owned(), serde_json::from_str(data).expect("JSON")))
        })
        .collect()
}

both_backends!(
    a_function_call_ends_the_response_and_its_output_continues_the_turn_as_a_new_response,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let asked = s.post("/openai/v1/responses", &asking()).await;
        asked.assert_status(200);
        let call = the_call(&asked.body);
        assert_eq!(asked.body["tools"][0]["name"], "lookup", "{asked}");
        let offered = s.mock.requests()[0].tool_names();
        assert!(offered.iter().any(|n| n == "lookup"), "{offered:?}");
        let first_id = asked.body["id"].as_str().unwrap().to_owned();

        let answer = json!({
            "model": "auto",
            "previous_response_id": first_id,
            "input": [output_of(&call["call_id"], "cat (a small domesticated feline)")],
            "tools": tools(),
        });
        let done = s.post("/openai/v1/responses", &answer).await;
        done.assert_status(200);
        assert_eq!(done.body["status"], "completed", "{done}");
        let next_id = done.body["id"].as_str().unwrap().to_owned();
        assert_ne!(next_id, first_id, "a response of its own");
        assert!(next_id.starts_with(&first_id), "{next_id}");
        assert!(
            said(&done.body).contains("small domesticated feline"),
            "{done}"
        );
        assert!(
            !done.body["output"]
                .as_array()
                .unwrap()
                .iter()
                .any(|item| item["type"] == "function_call"),
            "the call is not shown again: {done}"
        );
        let results = tool_results(&s.mock);
        assert!(
            results.len() == 1 && results[0].contains("small domesticated feline"),
            "{results:?}"
        );
        assert!(done.body["usage"]["total_tokens"].as_u64().unwrap() > 0);

        // Each response reads again as it was answered.
        let first = s
            .app
            .get(&format!("/openai/v1/responses/{first_id}"), Some(&s.token))
            .await;
        first.assert_status(200);
        assert_eq!(first.body["output"], asked.body["output"]);
        let next = s
            .app
            .get(&format!("/openai/v1/responses/{next_id}"), Some(&s.token))
            .await;
        next.assert_status(200);
        assert_eq!(next.body["output"], done.body["output"]);
        assert_eq!(next.body["status"], "completed");

        // The call has its result: answering it again answers nothing.
        let again = s.post("/openai/v1/responses", &answer).await;
        again.assert_status(400);
        assert_eq!(again.body["error"]["code"], "invalid_parameter");
        assert_eq!(again.body["error"]["param"], "input[0].call_id");

        // The conversation goes on from the continuation.
        let on = json!({"model": "auto", "previous_response_id": next_id, "input": "thanks"});
        let on = s.post("/openai/v1/responses", &on).await;
        on.assert_status(200);
        assert_eq!(on.body["status"], "completed", "{on}");
        assert_eq!(on.body["previous_response_id"], next_id);
    }
);

both_backends!(
    a_stateless_client_sends_the_output_back_and_streams_the_rest,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let mut body = asking();
        body["stream"] = json!(true);
        let asked = s.post("/openai/v1/responses", &body).await;
        asked.assert_status(200);
        let events = stream_events(&asked.text);
        let kinds: Vec<&str> = events.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(kinds.last(), Some(&"response.completed"), "{kinds:?}");
        let at = |kind: &str| kinds.iter().position(|k| *k == kind).expect(kind);
        assert!(
            at("response.function_call_arguments.delta")
                < at("response.function_call_arguments.done")
        );
        let last = &events.last().unwrap().1["response"];
        let call = the_call(last);

        // The openai SDK's `input += response.output`, then the result.
        let mut input = vec![json!({"role": "user", "content": ASKS})];
        input.extend(last["output"].as_array().unwrap().iter().cloned());
        input.push(output_of(&call["call_id"], "cat"));
        let body = json!({"model": "auto", "input": input, "tools": tools(), "stream": true});
        let done = s.post("/openai/v1/responses", &body).await;
        done.assert_status(200);
        let events = stream_events(&done.text);
        assert_eq!(events[0].0, "response.created");
        assert_eq!(events[0].1["sequence_number"], 0);
        let streamed: String = events
            .iter()
            .filter(|(k, _)| k == "response.output_text.delta")
            .filter_map(|(_, e)| e["delta"].as_str())
            .collect();
        let (kind, end) = events.last().unwrap();
        assert_eq!(kind, "response.completed");
        assert!(streamed.contains("cat"), "{streamed}");
        assert_eq!(
            streamed,
            said(&end["response"]),
            "what streamed is the answer"
        );
        let id = end["response"]["id"].as_str().unwrap();
        let stored = s
            .app
            .get(&format!("/openai/v1/responses/{id}"), Some(&s.token))
            .await;
        assert_eq!(
            said(&stored.body),
            streamed,
            "what streamed is what is stored"
        );
    }
);

both_backends!(
    an_item_reference_to_the_call_is_the_call_and_a_background_continuation_is_polled,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let asked = s.post("/openai/v1/responses", &asking()).await;
        asked.assert_status(200);
        let call = the_call(&asked.body);
        // The AI SDK with `store`: earlier items by reference, then the result.
        let body = json!({
            "model": "auto",
            "input": [
                {"role": "user", "content": [{"type": "input_text", "text": ASKS}]},
                {"type": "item_reference", "id": call["id"]},
                output_of(&call["call_id"], "cat"),
            ],
            "tools": tools(),
            "background": true,
        });
        let queued = s.post("/openai/v1/responses", &body).await;
        queued.assert_status(200);
        assert_eq!(queued.body["status"], "queued", "{queued}");
        let id = queued.body["id"].as_str().unwrap().to_owned();
        let mut polled = Value::Null;
        for _ in 0..100 {
            let got = s
                .app
                .get(&format!("/openai/v1/responses/{id}"), Some(&s.token))
                .await;
            got.assert_status(200);
            if got.body["status"] == "completed" {
                polled = got.body;
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(said(&polled).contains("cat"), "{polled}");
    }
);

both_backends!(
    results_for_no_call_or_another_responses_call_and_choices_of_no_function_are_refused_by_name,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let made_up = json!({
            "model": "auto",
            "input": [
                {"type": "function_call", "call_id": "call_0190f1d2a3b44c5d8e9f0a1b2c3d4e5f", "name": "lookup", "arguments": "{}"},
                output_of(&json!("call_0190f1d2a3b44c5d8e9f0a1b2c3d4e5f"), "cat"),
            ],
        });
        let refused = s.post("/openai/v1/responses", &made_up).await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "input[1].call_id",
            "{refused}"
        );
        let unannounced = json!({"model": "auto", "input": [output_of(&json!("call_x"), "cat")]});
        let refused = s.post("/openai/v1/responses", &unannounced).await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "input[0].call_id",
            "{refused}"
        );
        assert_eq!(s.mock.requests().len(), 0, "nothing was asked");

        let mut unknown = asking();
        unknown["tool_choice"] = json!({"type": "function", "name": "define"});
        let refused = s.post("/openai/v1/responses", &unknown).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["code"], "invalid_parameter");
        assert_eq!(refused.body["error"]["param"], "tool_choice", "{refused}");
        let mut mcp = asking();
        mcp["tool_choice"] = json!({"type": "mcp", "server_label": "parley"});
        let refused = s.post("/openai/v1/responses", &mcp).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["code"], "unsupported_parameter");
        let mut web = asking();
        web["tools"][0]["type"] = json!("web_search");
        let refused = s.post("/openai/v1/responses", &web).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "tools[0].type");
        let mut bad = asking();
        bad["tools"][0]["parameters"] = json!("an object");
        let refused = s.post("/openai/v1/responses", &bad).await;
        refused.assert_status(400);
        assert_eq!(refused.body["error"]["param"], "tools[0].parameters");

        // A call answered under another response's id.
        let asked = s.post("/openai/v1/responses", &asking()).await;
        let call = the_call(&asked.body);
        let other = s
            .post(
                "/openai/v1/responses",
                &json!({"model": "auto", "input": "hello"}),
            )
            .await;
        other.assert_status(200);
        let crossed = json!({
            "model": "auto",
            "previous_response_id": other.body["id"],
            "input": [output_of(&call["call_id"], "cat")],
        });
        let refused = s.post("/openai/v1/responses", &crossed).await;
        refused.assert_status(400);
        assert_eq!(
            refused.body["error"]["param"], "previous_response_id",
            "{refused}"
        );
        // The call still waits, and its own response takes the answer.
        let right = json!({
            "model": "auto",
            "previous_response_id": asked.body["id"],
            "input": [output_of(&call["call_id"], "cat")],
        });
        let done = s.post("/openai/v1/responses", &right).await;
        done.assert_status(200);
        assert!(said(&done.body).contains("cat"), "{done}");
    }
);

both_backends!(
    a_named_tool_choice_and_serial_calls_reach_the_model_and_the_response_shows_them,
    |backend: Backend| async move {
        let s = surface(backend).await;
        let mut body = asking();
        body["tool_choice"] = json!({"type": "function", "name": "lookup"});
        body["parallel_tool_calls"] = json!(false);
        let asked = s.post("/openai/v1/responses", &body).await;
        asked.assert_status(200);
        the_call(&asked.body);
        assert_eq!(asked.body["tool_choice"], body["tool_choice"], "{asked}");
        assert_eq!(asked.body["parallel_tool_calls"], json!(false));
        let sent = s.mock.requests()[0].body.clone();
        assert_eq!(
            sent["tool_choice"],
            json!({"type": "function", "function": {"name": "lookup"}}),
            "{sent}"
        );
        assert_eq!(sent["parallel_tool_calls"], json!(false));
        let read = s
            .app
            .get(
                &format!(
                    "/openai/v1/responses/{}",
                    asked.body["id"].as_str().unwrap()
                ),
                Some(&s.token),
            )
            .await;
        read.assert_status(200);
        assert_eq!(read.body["tool_choice"], body["tool_choice"], "{read}");
    }
);
