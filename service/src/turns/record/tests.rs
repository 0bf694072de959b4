use chrono::{TimeZone, Utc};
use uuid::Uuid;

use super::*;

fn prompt(state: PromptState) -> prompts::Model {
    let start = Utc.with_ymd_and_hms(2026, 11, 22, 10, 0, 0).unwrap();
    prompts::Model {
        id: Uuid::now_v7(),
        session_id: Uuid::now_v7(),
        user_message_id: Some(Uuid::now_v7()),
        assistant_message_id: Some(Uuid::now_v7()),
        state,
        attempt: 2,
        model: Some("m".into()),
        vendor: Some("v".into()),
        route: None,
        system_message: None,
        error_code: None,
        error: None,
        idempotency_key: None,
        cancel_requested_at: None,
        created_at: start,
        started_at: Some(start),
        completed_at: Some(start + chrono::Duration::milliseconds(1234)),
        input: None,
        lease_owner: None,
        lease_expires_at: None,
        response: None,
        seq_ceiling: 0,
        request_hash: None,
    }
}

#[test]
fn a_completed_turn_ends_with_complete_from_the_recorded_facts() {
    let prompt = prompt(PromptState::Completed);
    let usage = total_usage([Usage::plain(10, 3), Usage::plain(20, 4)]);
    let event = terminal_event(TurnRecord {
        prompt: &prompt,
        answer: "Hello",
        usage,
        tool_calls: &[],
    });
    let Some(EventKind::Complete {
        message_id,
        parent_id,
        payload,
        usage,
        model,
        vendor,
        latency_ms,
        blocked,
        block_category,
        replaced,
        fallback_from,
        fallback_reason,
        stop_reason,
    }) = event
    else {
        panic!("not a complete: {event:?}");
    };
    assert_eq!(Some(message_id), prompt.assistant_message_id);
    assert_eq!(
        parent_id, prompt.user_message_id,
        "the answer names its user message"
    );
    assert_eq!(payload.message, "Hello");
    assert_eq!((usage.input_tokens, usage.output_tokens), (30, 7));
    assert_eq!((model.as_str(), vendor.as_str()), ("m", "v"));
    assert_eq!(latency_ms, 1234);
    assert!(!blocked && !replaced && block_category.is_none());
    assert_eq!(payload.custom_payload, None);
    assert_eq!((fallback_from, fallback_reason), (None, None));
    assert_eq!(stop_reason, None, "an answer the model finished");
}

#[test]
fn the_recorded_payload_and_suggestions_are_in_complete() {
    use parley_protocol::events::{CustomPayload, ResponseExtras, SuggestedValue};
    let mut prompt = prompt(PromptState::Completed);
    let extras = ResponseExtras {
        custom_payload: Some(CustomPayload {
            kind: "todo".into(),
            data: serde_json::json!({"todo_id": "1", "title": "x"}),
        }),
        suggested_values: Some(vec![SuggestedValue {
            label: "Yes".into(),
            value: "yes".into(),
        }]),
        suggested_actions: None,
        moderation: None,
        fallback: Some(parley_protocol::events::Fallback {
            from: "primary".into(),
            reason: parley_protocol::events::FallbackReason::RateLimited,
        }),
        stop_reason: Some(parley_protocol::events::StopReason::MaxTokens),
    };
    prompt.response = Some(extras.clone());
    let Some(EventKind::Complete {
        payload,
        fallback_from,
        fallback_reason,
        stop_reason,
        ..
    }) = terminal_event(TurnRecord {
        prompt: &prompt,
        answer: "ok",
        usage: Usage::default(),
        tool_calls: &[],
    })
    else {
        panic!("not a complete");
    };
    assert_eq!(payload.custom_payload, extras.custom_payload);
    assert_eq!(payload.suggested_values, extras.suggested_values);
    assert_eq!(payload.suggested_actions, None);
    assert_eq!(
        (fallback_from.as_deref(), fallback_reason),
        (
            Some("primary"),
            Some(parley_protocol::events::FallbackReason::RateLimited)
        ),
        "a rebuilt complete says which model did not answer, and why"
    );
    assert_eq!(
        stop_reason, extras.stop_reason,
        "a rebuilt complete says the answer was cut"
    );
}

#[test]
fn failures_carry_their_typed_code_and_stable_message() {
    let mut failed = prompt(PromptState::Failed);
    failed.error_code = Some(ErrorCode::Unavailable);
    failed.error = Some(ErrorCode::Unavailable.message().into());
    let record = TurnRecord {
        prompt: &failed,
        answer: "",
        usage: Usage::default(),
        tool_calls: &[],
    };
    assert_eq!(
        terminal_event(record),
        Some(EventKind::Error {
            code: ErrorCode::Unavailable,
            message: ErrorCode::Unavailable.message().into(),
            retryable: true,
        })
    );
    failed.error_code = Some(ErrorCode::UnknownModel);
    failed.error = None;
    let record = TurnRecord {
        prompt: &failed,
        answer: "",
        usage: Usage::default(),
        tool_calls: &[],
    };
    let Some(EventKind::Error {
        code,
        message,
        retryable,
    }) = terminal_event(record)
    else {
        panic!("not an error");
    };
    assert_eq!(code, ErrorCode::UnknownModel);
    assert_eq!(message, ErrorCode::UnknownModel.message());
    assert!(!retryable, "a wrong model never succeeds later");
}

#[test]
fn cancelled_and_unfinished_prompts() {
    let canceled = prompt(PromptState::Canceled);
    fn record(prompt: &prompts::Model) -> TurnRecord<'_> {
        TurnRecord {
            prompt,
            answer: "",
            usage: Usage::default(),
            tool_calls: &[],
        }
    }
    assert_eq!(
        terminal_event(record(&canceled)),
        Some(EventKind::Cancelled)
    );
    for state in [
        PromptState::Created,
        PromptState::InProgress,
        PromptState::WaitingForTools,
    ] {
        let unfinished = prompt(state);
        assert_eq!(terminal_event(record(&unfinished)), None);
    }
    assert_eq!(
        state_event(&canceled),
        EventKind::state(PromptState::Canceled, 2)
    );
}

#[test]
fn a_recorded_block_or_replacement_is_in_complete() {
    use parley_protocol::events::{Moderation, ResponseExtras};
    let mut prompt = prompt(PromptState::Completed);
    prompt.response = Some(ResponseExtras {
        moderation: Some(Moderation {
            blocked: true,
            category: Some("self_harm".into()),
            module: Some("safety_filter".into()),
            replaced: false,
        }),
        ..ResponseExtras::default()
    });
    let event = terminal_event(TurnRecord {
        prompt: &prompt,
        answer: "Please talk to someone.",
        usage: Usage::default(),
        tool_calls: &[],
    });
    let Some(EventKind::Complete {
        blocked,
        block_category,
        replaced,
        payload,
        ..
    }) = event
    else {
        panic!("not a complete: {event:?}");
    };
    assert!(blocked && !replaced);
    assert_eq!(block_category.as_deref(), Some("self_harm"));
    assert_eq!(payload.message, "Please talk to someone.");
}
