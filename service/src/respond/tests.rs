use serde_json::json;

use super::*;
use crate::payloads::{PayloadSource, PayloadType};

fn registry() -> PayloadRegistry {
    PayloadRegistry::builtin_and([PayloadType {
        name: "schema_proposal".into(),
        description: "Proposed changes to a schema.".into(),
        source: PayloadSource::Llm,
        schema: json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
        llm_instructions: "Use it when asked.".into(),
        frontend_config: None,
    }])
    .unwrap()
}

fn types() -> Vec<&'static str> {
    vec!["schema_proposal"]
}

#[test]
fn text_without_markers_is_left_alone() {
    let text = "Plain answer.\nSUGGESTED_VALUES are nice: really.";
    let out = extract(text, &registry(), &types());
    assert_eq!(out.text, text);
    assert!(out.extras.is_empty());
}

#[test]
fn markers_are_taken_out_and_their_contents_kept() {
    let text = "Here is the plan.\n\
        SUGGESTED_VALUES: [{\"label\": \"Yes\", \"value\": \"Yes, go on\"}]\n\
        SUGGESTED_ACTIONS: [{\"label\": \"Done\", \"action\": \"end_session\", \"handler\": \"server\", \"style\": \"primary\"}, {\"label\": \"Open\", \"action\": \"open_report\", \"handler\": \"client\", \"data\": {\"id\": 3}}]\n\
        SCHEMA_PROPOSAL: ```json\n{\"name\": \"streams\"}\n```\n";
    let out = extract(text, &registry(), &types());
    assert_eq!(out.text, "Here is the plan.");
    assert_eq!(out.dropped, Vec::<String>::new());
    let values = out.extras.suggested_values.unwrap();
    assert_eq!(values[0].value, "Yes, go on");
    let actions = out.extras.suggested_actions.unwrap();
    assert_eq!(actions.len(), 2);
    assert_eq!(actions[0].handler, ActionHandler::Server);
    assert_eq!(actions[1].data, Some(json!({"id": 3})));
    let payload = out.extras.custom_payload.unwrap();
    assert_eq!(payload.kind, "schema_proposal");
    assert_eq!(payload.data, json!({"name": "streams"}));
}

#[test]
fn invalid_contents_are_removed_from_the_text_and_dropped() {
    let text = "Answer.\n\
        SCHEMA_PROPOSAL: {\"name\": 7}\n\
        SUGGESTED_VALUES: [{\"label\": \"x\"}]\n\
        SUGGESTED_ACTIONS: [{\"label\": \"Launch\", \"action\": \"launch_rockets\", \"handler\": \"server\"}, {\"label\": \"Say\", \"action\": \"send_message\", \"handler\": \"server\"}]";
    let out = extract(text, &registry(), &types());
    assert_eq!(out.text, "Answer.");
    assert!(out.extras.is_empty(), "{:?}", out.extras);
    assert_eq!(out.dropped.len(), 4, "{:?}", out.dropped);
    assert!(out.dropped[0].contains("/name"), "{:?}", out.dropped);
}

#[test]
fn a_marker_must_own_its_line_and_carry_json() {
    for text in [
        "Answer. SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}]",
        "SUGGESTED_VALUES: [{\"label\": \"a\", \"value\": \"b\"}] and more",
        "SUGGESTED_VALUES: not json",
        "SCHEMA_PROPOSAL {\"name\": \"x\"}",
    ] {
        let out = extract(text, &registry(), &types());
        assert_eq!(out.text, text, "{text}");
        assert!(out.extras.is_empty(), "{text}");
    }
}

#[test]
fn only_the_tools_llm_types_are_markers_and_the_last_payload_wins() {
    let text = "A\nSCHEMA_PROPOSAL: {\"name\": \"one\"}\nB\nSCHEMA_PROPOSAL: {\"name\": \"two\"}";
    let out = extract(text, &registry(), &types());
    assert_eq!(out.text, "A\nB");
    assert_eq!(out.extras.custom_payload.unwrap().data["name"], "two");
    // Not enabled for this tool, or a tool-sourced type: text stays.
    let out = extract(text, &registry(), &[]);
    assert_eq!(out.text, text);
    let todo = "TODO: {\"todo_id\": \"x\", \"title\": \"y\"}";
    assert_eq!(extract(todo, &registry(), &["todo"]).text, todo);
}

#[test]
fn a_function_payload_wins_over_the_texts() {
    let from_text = Some(CustomPayload {
        kind: "schema_proposal".into(),
        data: json!({"name": "t"}),
    });
    let function = CustomPayload {
        kind: "todo".into(),
        data: json!({"todo_id": "1", "title": "x"}),
    };
    assert_eq!(
        final_payload([None, Some(function.clone()), None], from_text.clone()),
        Some(function)
    );
    assert_eq!(final_payload([None], from_text.clone()), from_text);
}

#[test]
fn server_actions_check_their_data() {
    assert!(ServerAction::SendMessage.accepts(Some(&json!({"content": "hi"}))));
    assert!(!ServerAction::SendMessage.accepts(Some(&json!({"content": " "}))));
    assert!(!ServerAction::SendMessage.accepts(None));
    assert!(ServerAction::EndSession.accepts(None));
    assert_eq!(
        ServerAction::parse("end_session"),
        Some(ServerAction::EndSession)
    );
    assert_eq!(ServerAction::parse("nope"), None);
    let text = suggestion_instructions();
    assert!(text.contains("SUGGESTED_VALUES: [") && text.contains("send_message"));
}
