//! Serialization of the stream events: flat JSON with `type`, `seq` and `prompt_id`.

use serde_json::json;

use super::*;

#[test]
fn events_serialize_flat_with_type_seq_and_prompt_id() {
    let prompt_id = Uuid::now_v7();
    let event = StreamEvent {
        seq: 3,
        prompt_id,
        kind: EventKind::TextDelta {
            index: 0,
            text: "Hi".into(),
        },
    };
    let json = serde_json::to_value(&event).unwrap();
    assert_eq!(
        json,
        json!({"type": "text_delta", "seq": 3, "prompt_id": prompt_id, "index": 0, "text": "Hi"})
    );
    let back: StreamEvent = serde_json::from_value(json).unwrap();
    assert_eq!(back, event);
    assert_eq!(back.type_name(), "text_delta");
}

#[test]
fn every_type_name_matches_the_serde_tag() {
    let kinds = [
        EventKind::state(PromptState::InProgress, 1),
        EventKind::Status {
            message: "Thinking…".into(),
        },
        EventKind::BlockStart {
            index: 0,
            block_type: BlockType::Thinking,
        },
        EventKind::ThinkingDelta {
            index: 0,
            text: "hm".into(),
        },
        EventKind::BlockStop { index: 0 },
        EventKind::Retry {
            attempt: 2,
            reason: "worker lost".into(),
        },
        EventKind::Error {
            code: ErrorCode::UpstreamStall,
            message: "no token for 15 s".into(),
            retryable: true,
        },
        EventKind::Cancelled,
        EventKind::Ping { ts: 1 },
        EventKind::Reconnect { retry_ms: 1000 },
        EventKind::Reset,
        EventKind::Complete {
            message_id: Uuid::now_v7(),
            parent_id: None,
            payload: ChatResponsePayload {
                message: "done".into(),
                ..Default::default()
            },
            usage: Usage::plain(3, 5),
            model: "m".into(),
            vendor: "v".into(),
            latency_ms: 10,
            blocked: false,
            block_category: None,
            replaced: false,
            fallback_from: Some("m0".into()),
            fallback_reason: Some(FallbackReason::Unreachable),
            stop_reason: None,
        },
        EventKind::Fallback {
            from: "m0".into(),
            to: "m".into(),
            reason: FallbackReason::CircuitOpen,
        },
    ];
    for kind in kinds {
        let json = serde_json::to_value(&kind).unwrap();
        assert_eq!(json["type"], kind.type_name(), "{json}");
        let back: EventKind = serde_json::from_value(json).unwrap();
        assert_eq!(back, kind);
    }
    assert!(EventKind::Cancelled.is_terminal());
    assert!(!EventKind::BlockStop { index: 1 }.is_terminal());
    assert!(PromptState::Failed.is_terminal() && !PromptState::WaitingForTools.is_terminal());
    for state in [PromptState::InProgress, PromptState::Canceled] {
        assert_eq!(serde_json::to_value(state).unwrap(), state.as_str());
    }
}
