//! What the export writes fits the objects that document a line.

use std::collections::{BTreeMap, HashMap};

use parley_entity::{
    enums::MessageRole,
    query::feedback::export::{BranchMessage, CallOutput, Conversation, ExportCall},
};
use parley_protocol::config::SessionConfig;
use parley_service::functions::{DEFAULT_TIMEOUT, FunctionCatalog, FunctionSpec, Mode};
use poem_openapi::types::{ParseFromJSON, ToJSON};
use serde_json::json;
use uuid::Uuid;

use super::ExportedConversation;

#[test]
fn an_exported_line_with_every_kind_of_message_fits_its_documented_schema() {
    let message = |role, content: &str| BranchMessage {
        id: Uuid::now_v7(),
        session_id: Uuid::nil(),
        seq: 0,
        role,
        content: content.to_owned(),
        prompt_id: None,
    };
    let answer = message(MessageRole::Assistant, "[[tool:0]]It is noon.");
    let call = ExportCall {
        id: "call_0".into(),
        name: "getCurrentTime".into(),
        arguments: json!({}),
        output: CallOutput::Result(json!({"time": "12:00"})),
    };
    let conversation = Conversation {
        session_id: Uuid::nil(),
        config: serde_json::from_value::<SessionConfig>(json!({"functions": ["getCurrentTime"]}))
            .unwrap(),
        system: Some("Be brief.".into()),
        calls: HashMap::from([(answer.id, BTreeMap::from([(0, call)]))]),
        messages: vec![
            message(MessageRole::User, "Time?"),
            answer,
            message(MessageRole::System, "Timer done."),
        ],
    };
    let catalog = FunctionCatalog::new([FunctionSpec {
        name: "getCurrentTime".into(),
        description: "The time.".into(),
        parameters: json!({"type": "object"}),
        permissions: vec![],
        mode: Mode::Sync,
        timeout: DEFAULT_TIMEOUT,
        payload_type: None,
        requires_approval: false,
    }]);
    let line = parley_service::feedback::export::line(&conversation, &catalog);
    let json = serde_json::to_value(&line).unwrap();
    let roles: Vec<&str> = json["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["role"].as_str())
        .collect();
    assert_eq!(
        roles,
        ["system", "user", "assistant", "tool", "assistant", "system"]
    );
    let doc = ExportedConversation::parse_from_json(Some(json.clone()))
        .unwrap_or_else(|err| panic!("{json}: {}", err.into_message()));
    assert_eq!(doc.to_json().unwrap(), json);
}
