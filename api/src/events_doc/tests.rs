//! Every protocol event and payload fits the schema the document gives it.

use parley_protocol::events::{
    CustomPayload, EventKind, StreamEvent, SuggestedAction, SuggestedValue, ToolHistoryEntry,
};
use poem_openapi::types::{ParseFromJSON, ToJSON};
use serde_json::json;

use super::*;

#[test]
fn every_protocol_event_fits_its_documented_schema() {
    let prompt_id = Uuid::now_v7();
    let kinds = vec![
        EventKind::state(PromptState::WaitingForTools, 2),
        EventKind::Status {
            message: "Thinking…".into(),
        },
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::ToolCall,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Hi".into(),
        },
        EventKind::ThinkingDelta {
            index: 1,
            text: "hmm".into(),
        },
        EventKind::BlockStop { index: 0 },
        EventKind::ToolStart {
            index: 1,
            block_index: 2,
            tool: "getCurrentTime".into(),
            tool_use_id: "c1".into(),
            input: serde_json::json!({}),
        },
        EventKind::ToolProgress {
            index: 1,
            tool: "t".into(),
            stage: "s".into(),
            message: "m".into(),
            progress: 0.5,
            data: None,
        },
        EventKind::ToolComplete {
            index: 1,
            tool: "t".into(),
            tool_use_id: "c1".into(),
            state: parley_protocol::events::ToolCallState::Success,
            output: serde_json::json!(1),
            payload: None,
            duration_ms: 3,
        },
        EventKind::ApprovalRequested {
            index: 0,
            tool: "createTodo".into(),
            tool_use_id: "c1".into(),
            call_id: Uuid::now_v7(),
            input: serde_json::json!({"title": "x"}),
            expires_at: chrono::Utc::now(),
        },
        EventKind::ClientCallRequested {
            index: 1,
            tool: "lookup".into(),
            tool_use_id: "c2".into(),
            call_id: Uuid::now_v7(),
            input: serde_json::json!({"q": "x"}),
            expires_at: chrono::Utc::now(),
        },
        EventKind::Fallback {
            from: "a".into(),
            to: "b".into(),
            reason: FallbackReason::CircuitOpen,
        },
        EventKind::Retry {
            attempt: 2,
            reason: "r".into(),
        },
        EventKind::Complete {
            message_id: Uuid::now_v7(),
            parent_id: Some(Uuid::now_v7()),
            payload: ChatResponsePayload {
                message: "done".into(),
                ..Default::default()
            },
            usage: Usage::plain(1, 2),
            model: "m".into(),
            vendor: "v".into(),
            latency_ms: 5,
            blocked: true,
            block_category: Some("self_harm".into()),
            replaced: true,
            fallback_from: Some("a".into()),
            fallback_reason: Some(FallbackReason::NoFirstToken),
            stop_reason: Some(StopReason::MaxTokens),
        },
        EventKind::Error {
            code: ErrorCode::RateLimited,
            message: "slow down".into(),
            retryable: true,
        },
        EventKind::Cancelled,
        EventKind::Reset,
    ];
    for (i, kind) in kinds.into_iter().enumerate() {
        let event = StreamEvent {
            seq: i as u64 + 1,
            prompt_id,
            kind,
        };
        let json = serde_json::to_value(&event).unwrap();
        let doc = StreamEventDoc::parse_from_json(Some(json.clone())).unwrap_or_else(|err| {
            panic!(
                "{json} does not fit the documented schema: {}",
                err.into_message()
            )
        });
        assert_eq!(
            same_instants(doc.to_json().unwrap()),
            same_instants(json),
            "documented and real forms agree"
        );
        let name = EventName::parse_from_json(Some(json!(event.type_name())));
        assert!(name.is_ok(), "{} is an `event:` name", event.type_name());
    }
    for unstored in [
        EventKind::Ping { ts: 1 },
        EventKind::Reconnect { retry_ms: 1000 },
    ] {
        // Written as the bare event (`crate::sse::to_sse`): no `seq`, no `prompt_id`.
        let json = serde_json::to_value(&unstored).unwrap();
        assert!(
            StreamEventDoc::parse_from_json(Some(json.clone())).is_ok(),
            "{json}"
        );
        let name = EventName::parse_from_json(Some(json!(unstored.type_name())));
        assert!(name.is_ok(), "{} is an `event:` name", unstored.type_name());
    }
}

#[test]
fn a_payload_with_every_field_fits_its_documented_schema() {
    let payload = ChatResponsePayload {
        message: "Done [[tool:0]]".into(),
        custom_payload: Some(CustomPayload {
            kind: "quiz".into(),
            data: json!({"q": 1}),
        }),
        suggested_values: Some(vec![SuggestedValue {
            label: "Yes".into(),
            value: "yes".into(),
        }]),
        suggested_actions: Some(vec![SuggestedAction {
            label: "Open".into(),
            action: "open".into(),
            handler: ActionHandler::Client,
            data: Some(json!({"id": 3})),
            style: None,
        }]),
        tool_history: Some(vec![ToolHistoryEntry {
            tool_name: "getCurrentTime".into(),
            input: json!({}),
            output: json!("12:00"),
            status: parley_protocol::events::ToolCallState::Success,
            duration_ms: 3,
        }]),
    };
    let json = serde_json::to_value(&payload).unwrap();
    let doc = ChatResponsePayloadDoc::parse_from_json(Some(json.clone()))
        .unwrap_or_else(|err| panic!("{json}: {}", err.into_message()));
    assert_eq!(doc.to_json().unwrap(), json);
    let usage = serde_json::to_value(Usage::default()).unwrap();
    assert!(UsageDoc::parse_from_json(Some(usage)).is_ok());
}

#[test]
fn the_hook_contract_on_the_wire_fits_its_documented_schema() {
    use parley_protocol::hooks::{
        Audit, ConversationContext, ConversationMessage, Extraction, Hook, HookAction, HookContext,
        HookResult, Modifications, RequestContext, ScopeContext, SessionContext, ToolContext,
        UserContext,
    };
    let context = HookContext {
        request: RequestContext {
            request_id: Uuid::now_v7(),
            hook: Hook::AfterAi,
            timestamp: chrono::Utc::now(),
            prompt_id: Some(Uuid::now_v7()),
        },
        user: UserContext {
            id: Uuid::now_v7(),
            email: "a@b.c".into(),
            name: "A".into(),
            role: "student".into(),
        },
        scope: ScopeContext::default(),
        tool: ToolContext {
            id: Uuid::now_v7(),
            name: "T".into(),
            kind: "chat".into(),
            definition: parley_protocol::config::SessionConfig {
                behavior: Some("x".into()),
                ..Default::default()
            },
        },
        session: SessionContext {
            id: Uuid::now_v7(),
            state: "active".into(),
            started_at: chrono::Utc::now(),
            message_count: 2,
            end_reason: None,
        },
        conversation: ConversationContext {
            messages: vec![ConversationMessage {
                id: Some(Uuid::now_v7()),
                role: "user".into(),
                content: "hi".into(),
                seq: Some(1),
            }],
            current_message: Some(ConversationMessage {
                id: None,
                role: "user".into(),
                content: "now".into(),
                seq: None,
            }),
        },
        response: Some("answer".into()),
        config: json!({"k": 1}),
    };
    let json = serde_json::to_value(&context).unwrap();
    let parsed = HookContext::parse_from_json(Some(json.clone()))
        .unwrap_or_else(|err| panic!("{json}: {}", err.into_message()));
    assert_eq!(parsed, context);

    let result = HookResult {
        action: HookAction::Block,
        modifications: Some(Modifications {
            message_content: Some("m".into()),
            response_content: None,
            system_prompt_additions: vec!["s".into()],
        }),
        block_reason: Some("r".into()),
        block_category: Some("c".into()),
        direct_response: Some("d".into()),
        extractions: vec![Extraction {
            kind: "t".into(),
            data: json!({"a": 1}),
        }],
        audit: Some(Audit {
            original_content: "o".into(),
            redaction_reason: "why".into(),
            patterns_matched: vec!["email".into()],
        }),
    };
    let json = serde_json::to_value(&result).unwrap();
    let parsed = HookResult::parse_from_json(Some(json.clone()))
        .unwrap_or_else(|err| panic!("{json}: {}", err.into_message()));
    assert_eq!(parsed, result);
    // The smallest answer a webhook may give.
    assert_eq!(
        HookResult::parse_from_json(Some(json!({}))).unwrap(),
        HookResult::proceed()
    );
}

/// `value` with its timestamps written one way (serde writes `+00:00` where poem writes
/// `Z`; both are RFC 3339).
fn same_instants(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::String(text) => match chrono::DateTime::parse_from_rfc3339(&text) {
            Ok(at) => Value::String(at.with_timezone(&chrono::Utc).to_rfc3339()),
            Err(_) => Value::String(text),
        },
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (key, same_instants(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(same_instants).collect()),
        other => other,
    }
}
