use parley_protocol::events::ToolCallState;
use uuid::Uuid;

use super::*;
use crate::openai::fixtures::complete;

fn meta(background: bool) -> ResponseMeta {
    ResponseMeta {
        hex: "0".repeat(32),
        created_at: 100,
        model: "mock-model".into(),
        background,
        previous_response_id: None,
        instructions: None,
        sampling: Sampling::default(),
        format: None,
        client_functions: vec![],
        call_policy: Default::default(),
    }
}

fn events(kinds: Vec<EventKind>) -> Vec<StreamEvent> {
    kinds
        .into_iter()
        .enumerate()
        .map(|(i, kind)| StreamEvent {
            seq: i as u64 + 1,
            prompt_id: Uuid::nil(),
            kind,
        })
        .collect()
}

fn a_tool_turn() -> Vec<StreamEvent> {
    events(vec![
        EventKind::state(parley_protocol::events::PromptState::InProgress, 1),
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Checking[[tool:0]]".into(),
        },
        EventKind::BlockStop { index: 0 },
        EventKind::ToolStart {
            index: 0,
            block_index: 1,
            tool: "getCurrentTime".into(),
            tool_use_id: "c".into(),
            input: json!({"time_zone": "UTC"}),
        },
        EventKind::ToolComplete {
            index: 0,
            tool: "getCurrentTime".into(),
            tool_use_id: "c".into(),
            state: ToolCallState::Success,
            output: json!({"iso": "x"}),
            payload: None,
            duration_ms: 1,
        },
        EventKind::BlockStart {
            index: 2,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 2,
            text: "It is ".into(),
        },
        EventKind::TextDelta {
            index: 2,
            text: "noon.".into(),
        },
        EventKind::BlockStop { index: 2 },
        complete("Checking[[tool:0]]It is noon.", false),
    ])
}

fn run(translator: &mut ResponsesTranslator, events: &[StreamEvent]) -> Vec<Value> {
    events.iter().flat_map(|e| translator.events(e)).collect()
}

#[test]
fn events_are_numbered_from_zero_the_same_on_every_replay() {
    let log = a_tool_turn();
    let first = run(&mut ResponsesTranslator::new(meta(false)), &log);
    let again = run(&mut ResponsesTranslator::new(meta(false)), &log);
    assert_eq!(first, again, "a replay is the same stream");
    let numbers: Vec<u64> = first
        .iter()
        .map(|e| e["sequence_number"].as_u64().expect("numbered"))
        .collect();
    assert_eq!(numbers, (0..first.len() as u64).collect::<Vec<_>>());
    let types: Vec<&str> = first.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[..2], ["response.created", "response.in_progress"]);
    assert_eq!(*types.last().unwrap(), "response.completed");
    assert!(types.contains(&"response.mcp_call.completed"), "{types:?}");
    // Every item added is done before the end, and the final response has them all.
    let added = types
        .iter()
        .filter(|t| **t == "response.output_item.added")
        .count();
    let done = types
        .iter()
        .filter(|t| **t == "response.output_item.done")
        .count();
    assert_eq!((added, done), (3, 3), "{types:?}");
    let last = first.last().unwrap();
    let output = last["response"]["output"].as_array().expect("output");
    assert_eq!(output.len(), 3);
    assert_eq!(output[0]["type"], "message");
    assert_eq!(
        output[0]["content"][0]["text"], "Checking",
        "markers are gone"
    );
    assert_eq!(output[1]["type"], "mcp_call");
    assert_eq!(output[1]["server_label"], "parley");
    assert_eq!(output[1]["arguments"], "{\"time_zone\":\"UTC\"}");
    assert_eq!(output[1]["output"], "{\"iso\":\"x\"}");
    assert_eq!(output[2]["content"][0]["text"], "It is noon.");
    assert_eq!(last["response"]["usage"]["total_tokens"], 7);
    assert_eq!(last["response"]["completed_at"], 102);
    // Each item keeps its id across its events.
    for event in &first {
        if let Some(item_id) = event["item_id"].as_str() {
            let index = event["output_index"].as_u64().unwrap() as usize;
            assert_eq!(output[index]["id"], item_id);
        }
    }
}

#[test]
fn a_background_response_starts_queued() {
    let log = a_tool_turn();
    let events = run(&mut ResponsesTranslator::new(meta(true)), &log);
    assert_eq!(events[0]["response"]["status"], "queued");
    assert_eq!(events[0]["response"]["background"], true);
    assert_eq!(events[1]["response"]["status"], "in_progress");
}

#[test]
fn blocks_failures_and_cancels_end_as_the_sdks_expect() {
    let blocked = events(vec![complete("Not here.", true)]);
    let mut t = ResponsesTranslator::new(meta(false));
    let out = run(&mut t, &blocked);
    let last = out.last().unwrap();
    assert_eq!(last["type"], "response.incomplete");
    assert_eq!(
        last["response"]["incomplete_details"]["reason"],
        "content_filter"
    );
    assert_eq!(
        last["response"]["output"][0]["content"][0]["text"],
        "Not here."
    );

    let failed = events(vec![
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Par".into(),
        },
        EventKind::Error {
            code: ErrorCode::UpstreamError,
            message: "the model provider failed to answer".into(),
            retryable: true,
        },
    ]);
    let out = run(&mut ResponsesTranslator::new(meta(false)), &failed);
    let last = out.last().unwrap();
    assert_eq!(last["type"], "response.failed");
    assert_eq!(last["response"]["error"]["code"], "server_error");
    assert_eq!(last["response"]["output"][0]["status"], "incomplete");

    let cancelled = events(vec![EventKind::Cancelled]);
    let out = run(&mut ResponsesTranslator::new(meta(false)), &cancelled);
    assert_eq!(out.last().unwrap()["type"], "response.incomplete");
    assert_eq!(out.last().unwrap()["response"]["status"], "cancelled");
}

#[test]
fn a_retried_attempt_closes_what_it_had_streamed() {
    let log = events(vec![
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Hal".into(),
        },
        EventKind::Retry {
            attempt: 2,
            reason: "worker lost".into(),
        },
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Hello".into(),
        },
        EventKind::BlockStop { index: 0 },
        complete("Hello", false),
    ]);
    let out = run(&mut ResponsesTranslator::new(meta(false)), &log);
    let output = out.last().unwrap()["response"]["output"]
        .as_array()
        .unwrap()
        .clone();
    assert_eq!(output.len(), 2);
    assert_eq!(output[0]["status"], "incomplete");
    assert_eq!(output[1]["status"], "completed");
    assert_eq!(output[1]["content"][0]["text"], "Hello");
}

#[test]
fn a_failed_call_says_why_in_a_string_as_openai_does() {
    let mut log = a_tool_turn();
    for event in &mut log {
        if let EventKind::ToolComplete { state, output, .. } = &mut event.kind {
            *state = ToolCallState::Error;
            *output = json!({"error": "the clock is broken"});
        }
    }
    let out = run(&mut ResponsesTranslator::new(meta(false)), &log);
    let types: Vec<&str> = out.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert!(types.contains(&"response.mcp_call.failed"), "{types:?}");
    let call = &out.last().unwrap()["response"]["output"][1];
    assert_eq!(call["type"], "mcp_call");
    assert_eq!(call["status"], "failed");
    assert_eq!(call["error"], "the clock is broken");
    assert_eq!(call["output"], Value::Null);
}

/// A turn that calls the caller's `lookup` and, resumed with its result, answers.
fn a_client_call_turn(call_id: Uuid) -> Vec<StreamEvent> {
    events(vec![
        EventKind::state(parley_protocol::events::PromptState::InProgress, 1),
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Let me look[[tool:0]]".into(),
        },
        EventKind::BlockStop { index: 0 },
        EventKind::ToolStart {
            index: 0,
            block_index: 1,
            tool: "lookup".into(),
            tool_use_id: "t".into(),
            input: json!({"word": "gato"}),
        },
        EventKind::ClientCallRequested {
            index: 0,
            tool: "lookup".into(),
            tool_use_id: "t".into(),
            call_id,
            input: json!({"word": "gato"}),
            expires_at: chrono::Utc::now(),
        },
        EventKind::Retry {
            attempt: 2,
            reason: "the caller's results came".into(),
        },
        EventKind::ToolComplete {
            index: 0,
            tool: "lookup".into(),
            tool_use_id: "t".into(),
            state: ToolCallState::Success,
            output: json!("cat"),
            payload: None,
            duration_ms: 1,
        },
        EventKind::BlockStart {
            index: 2,
            block_type: BlockType::Text,
        },
        EventKind::TextDelta {
            index: 2,
            text: "Gato is cat.".into(),
        },
        EventKind::BlockStop { index: 2 },
        complete("Let me look[[tool:0]]Gato is cat.", false),
    ])
}

fn with_lookup() -> ResponseMeta {
    ResponseMeta {
        client_functions: vec![parley_protocol::client_functions::ClientFunction {
            name: "lookup".into(),
            description: Some("Looks a word up.".into()),
            parameters: json!({"type": "object"}),
            returns: None,
        }],
        ..meta(false)
    }
}

#[test]
fn a_call_of_the_callers_function_ends_the_response_and_the_next_one_goes_on() {
    let call_id = Uuid::now_v7();
    let log = a_client_call_turn(call_id);
    let first = run(&mut ResponsesTranslator::new(with_lookup()), &log);
    let types: Vec<&str> = first.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(*types.last().unwrap(), "response.completed", "{types:?}");
    assert!(!types.iter().any(|t| t.contains("mcp_call")), "{types:?}");
    let at = |kind: &str| types.iter().position(|t| *t == kind).expect(kind);
    assert!(
        at("response.function_call_arguments.delta") < at("response.function_call_arguments.done")
    );
    let last = &first.last().unwrap()["response"];
    assert_eq!(last["id"], format!("resp_{}", "0".repeat(32)));
    let output = last["output"].as_array().expect("output");
    assert_eq!(output.len(), 2, "{output:?}");
    assert_eq!(output[0]["content"][0]["text"], "Let me look");
    let call = &output[1];
    assert_eq!(call["type"], "function_call");
    assert_eq!(call["call_id"], format!("call_{}", call_id.simple()));
    assert_eq!(call["name"], "lookup");
    assert_eq!(call["arguments"], "{\"word\":\"gato\"}");
    assert_eq!(call["status"], "completed");
    assert_eq!(last["tools"][0]["name"], "lookup");
    assert_eq!(last["tools"][0]["type"], "function");
    assert_eq!(
        last["usage"]["total_tokens"], 0,
        "the turn's usage comes at its end"
    );

    let from = Continuing {
        attempt: 1,
        calls: 1,
    };
    let next = run(
        &mut ResponsesTranslator::new(with_lookup()).continuing(from),
        &log,
    );
    let types: Vec<&str> = next.iter().map(|e| e["type"].as_str().unwrap()).collect();
    assert_eq!(types[0], "response.created");
    assert_eq!(
        next[0]["sequence_number"], 0,
        "a response of its own, numbered anew"
    );
    assert!(!types.iter().any(|t| t.contains("call")), "{types:?}");
    let last = &next.last().unwrap()["response"];
    let key = format!("{}_1_1", "0".repeat(32));
    assert_eq!(last["id"], format!("resp_{key}"));
    let output = last["output"].as_array().expect("output");
    assert_eq!(output.len(), 1, "{output:?}");
    assert_eq!(output[0]["id"], format!("msg_{key}_0"));
    assert_eq!(output[0]["content"][0]["text"], "Gato is cat.");
    assert_eq!(last["usage"]["total_tokens"], 7);
}

#[test]
fn arguments_that_do_not_fit_are_no_call_for_the_caller() {
    // The model's call of `lookup` was refused (its arguments broke the parameters) and
    // the model answered: no `function_call` item, and the response ends with the turn.
    let log = events(vec![
        EventKind::ToolStart {
            index: 0,
            block_index: 0,
            tool: "lookup".into(),
            tool_use_id: "t".into(),
            input: json!({"word": 5}),
        },
        EventKind::ToolComplete {
            index: 0,
            tool: "lookup".into(),
            tool_use_id: "t".into(),
            state: ToolCallState::Error,
            output: json!({"error": "word: not a string"}),
            payload: None,
            duration_ms: 0,
        },
        complete("Sorry.", false),
    ]);
    let out = run(&mut ResponsesTranslator::new(with_lookup()), &log);
    let last = out.last().unwrap();
    assert_eq!(last["type"], "response.completed");
    let output = last["response"]["output"].as_array().unwrap();
    assert_eq!(output.len(), 1, "{output:?}");
    assert_eq!(output[0]["type"], "message");
}
