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
