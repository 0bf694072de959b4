use std::collections::{BTreeMap, HashMap};

use parley_protocol::config::SessionConfig;
use serde_json::json;

use super::*;
use crate::functions::{FunctionSpec, Mode};

fn message(role: MessageRole, content: &str) -> BranchMessage {
    BranchMessage {
        id: Uuid::now_v7(),
        session_id: Uuid::nil(),
        seq: 0,
        role,
        content: content.to_owned(),
        prompt_id: None,
    }
}

fn call(id: &str, name: &str, arguments: Value, output: CallOutput) -> ExportCall {
    ExportCall {
        id: id.to_owned(),
        name: name.to_owned(),
        arguments,
        output,
    }
}

fn catalog() -> FunctionCatalog {
    FunctionCatalog::new([FunctionSpec {
        name: "getCurrentTime".into(),
        description: "The time.".into(),
        parameters: json!({"type": "object", "properties": {"tz": {"type": "string"}}}),
        permissions: vec![],
        mode: Mode::Sync,
        timeout: crate::functions::DEFAULT_TIMEOUT,
        payload_type: None,
        requires_approval: false,
    }])
}

#[test]
fn markers_cut_the_text_and_other_brackets_stay_text() {
    assert_eq!(
        pieces("a[[tool:0]][[tool:12]]b"),
        [
            Piece::Text("a"),
            Piece::Marker(0),
            Piece::Marker(12),
            Piece::Text("b")
        ]
    );
    assert_eq!(
        pieces("[[tool:x]] and [[tool:3] then [[tool:4]]"),
        [
            Piece::Text("[[tool:x]] and [[tool:3] then "),
            Piece::Marker(4)
        ]
    );
    assert_eq!(pieces(""), []);
    assert_eq!(pieces("plain"), [Piece::Text("plain")]);
}

#[test]
fn a_conversation_with_function_calls_is_one_line_of_openai_messages() {
    let user = message(MessageRole::User, "What time is it? Mail [email].");
    let first = message(
        MessageRole::Assistant,
        "Checking[[tool:0]] [[tool:1]]Again[[tool:2]]It is noon.",
    );
    let notice = message(MessageRole::System, "Timer tea went off.");
    let plain = message(MessageRole::Assistant, "Enjoy [[tool:x]].");
    let mut calls = BTreeMap::new();
    calls.insert(
        0,
        call(
            "call_a",
            "getCurrentTime",
            json!({"tz": "UTC"}),
            CallOutput::Result(json!({"time": "12:00"})),
        ),
    );
    calls.insert(
        1,
        call(
            "call_b",
            "getCurrentTime",
            json!("not json"),
            CallOutput::Error("unknown time zone".into()),
        ),
    );
    calls.insert(
        2,
        call(
            "call_c",
            "mcp_weather",
            json!({}),
            CallOutput::Result(json!("sunny")),
        ),
    );
    let config: SessionConfig = serde_json::from_value(json!({
        "behavior": "Help.",
        "functions": ["getCurrentTime", "gone"],
    }))
    .unwrap();
    let conversation = Conversation {
        session_id: Uuid::nil(),
        config,
        system: Some("You are a tutor.".into()),
        calls: HashMap::from([(first.id, calls)]),
        messages: vec![user, first, notice, plain],
    };
    let line = serde_json::to_value(line(&conversation, &catalog())).unwrap();
    assert_eq!(
        line,
        json!({
            "messages": [
                {"role": "system", "content": "You are a tutor."},
                {"role": "user", "content": "What time is it? Mail [email]."},
                {"role": "assistant", "content": "Checking", "tool_calls": [
                    {"id": "call_a", "type": "function",
                     "function": {"name": "getCurrentTime", "arguments": "{\"tz\":\"UTC\"}"}},
                    {"id": "call_b", "type": "function",
                     "function": {"name": "getCurrentTime", "arguments": "not json"}},
                ]},
                {"role": "tool", "tool_call_id": "call_a", "content": "{\"time\":\"12:00\"}"},
                {"role": "tool", "tool_call_id": "call_b", "content": "{\"error\":\"unknown time zone\"}"},
                {"role": "assistant", "content": "Again", "tool_calls": [
                    {"id": "call_c", "type": "function",
                     "function": {"name": "mcp_weather", "arguments": "{}"}},
                ]},
                {"role": "tool", "tool_call_id": "call_c", "content": "sunny"},
                {"role": "assistant", "content": "It is noon."},
                {"role": "system", "content": "Timer tea went off."},
                {"role": "assistant", "content": "Enjoy [[tool:x]]."},
            ],
            "tools": [{"type": "function", "function": {
                "name": "getCurrentTime",
                "description": "The time.",
                "parameters": {"type": "object", "properties": {"tz": {"type": "string"}}},
            }}],
        })
    );
}

#[test]
fn answers_without_text_or_with_unknown_markers_keep_a_message() {
    let only_call = message(MessageRole::Assistant, "[[tool:0]]");
    let unknown = message(MessageRole::Assistant, "[[tool:7]]");
    let empty = message(MessageRole::Assistant, "");
    let mut calls = BTreeMap::new();
    calls.insert(
        0,
        call("c", "f", json!({}), CallOutput::Shown("partial".into())),
    );
    let conversation = Conversation {
        session_id: Uuid::nil(),
        config: SessionConfig::default(),
        system: None,
        calls: HashMap::from([(only_call.id, calls)]),
        messages: vec![only_call, unknown, empty],
    };
    let line = serde_json::to_value(line(&conversation, &catalog())).unwrap();
    assert_eq!(
        line,
        json!({"messages": [
            {"role": "assistant", "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "f", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c", "content": "partial"},
            {"role": "assistant", "content": ""},
            {"role": "assistant", "content": ""},
        ]})
    );
}
