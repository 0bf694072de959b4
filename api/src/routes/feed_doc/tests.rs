//! Every protocol user event fits the schema the document gives it.

use parley_protocol::feed::{UserEvent, UserEventKind};
use poem_openapi::types::{ParseFromJSON, Type};
use serde_json::json;

use super::*;

#[test]
fn every_user_event_fits_its_documented_schema() {
    let (session_id, prompt_id) = (Uuid::now_v7(), Uuid::now_v7());
    let kinds = vec![
        UserEventKind::SessionCreated {
            session_id,
            tool_id: Uuid::now_v7(),
        },
        UserEventKind::SessionUpdated {
            session_id,
            title: Some("Fractions".into()),
            pinned: Some(true),
            archived: Some(false),
            state: Some(parley_protocol::jobs::SessionState::Completed),
            end_reason: Some("idle".into()),
        },
        UserEventKind::session_state(
            session_id,
            parley_protocol::jobs::SessionState::Completed,
            None,
        ),
        UserEventKind::SessionDeleted { session_id },
        UserEventKind::TurnStarted {
            session_id,
            prompt_id,
            user_message_id: Some(Uuid::now_v7()),
        },
        UserEventKind::TurnFinished {
            session_id,
            prompt_id,
            state: PromptState::Completed,
            assistant_message_id: None,
        },
        UserEventKind::ApprovalRequested {
            session_id,
            prompt_id,
            call_id: Uuid::now_v7(),
            function: "send_email".into(),
            input: json!({"to": "a@b.c"}),
            expires_at: chrono::Utc::now(),
        },
        UserEventKind::ApprovalResolved {
            session_id,
            prompt_id,
            call_id: Uuid::now_v7(),
            approved: false,
            expired: true,
        },
        UserEventKind::TimerFired {
            timer_id: Uuid::now_v7(),
            label: "tea".into(),
            session_id: Some(session_id),
            message_id: Some(Uuid::now_v7()),
        },
        UserEventKind::Ping { ts: 1 },
        UserEventKind::Reconnect { retry_ms: 1000 },
        UserEventKind::Reset,
    ];
    for kind in kinds {
        let json = if kind.is_stored() {
            serde_json::to_value(UserEvent {
                seq: 12,
                kind: kind.clone(),
            })
            .unwrap()
        } else {
            serde_json::to_value(&kind).unwrap()
        };
        assert!(
            UserEventDoc::parse_from_json(Some(json.clone())).is_ok(),
            "{json} fits UserEvent"
        );
        assert!(
            UserEventName::parse_from_json(Some(json!(kind.type_name()))).is_ok(),
            "`{}` is an event name",
            kind.type_name()
        );
    }
    assert_eq!(UserEventDoc::name(), "UserEvent");
}
