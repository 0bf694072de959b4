use uuid::Uuid;

use super::*;
use crate::openai::fixtures::complete;

fn event(seq: u64, kind: EventKind) -> StreamEvent {
    StreamEvent {
        seq,
        prompt_id: Uuid::nil(),
        kind,
    }
}

#[test]
fn markers_go_and_other_brackets_stay() {
    assert_eq!(strip_markers("a [[tool:0]]b[[tool:12]]"), "a b");
    assert_eq!(
        strip_markers("[[tool:x]] [[tool:]] [[tool:3"),
        "[[tool:x]] [[tool:]] [[tool:3"
    );
}

#[test]
fn a_turn_with_a_function_call_reads_as_text_and_ends_once() {
    let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), true);
    let events = [
        EventKind::BlockStart {
            index: 0,
            block_type: parley_protocol::events::BlockType::Text,
        },
        EventKind::TextDelta {
            index: 0,
            text: "Let me check.[[tool:0]]".into(),
        },
        EventKind::ToolStart {
            index: 0,
            block_index: 1,
            tool: "getCurrentTime".into(),
            tool_use_id: "c1".into(),
            input: json!({"time_zone": "UTC"}),
        },
        EventKind::ToolComplete {
            index: 0,
            tool: "getCurrentTime".into(),
            tool_use_id: "c1".into(),
            state: ToolCallState::Success,
            output: json!({"iso": "2026-01-01T00:00:00Z"}),
            payload: None,
            duration_ms: 3,
        },
        EventKind::TextDelta {
            index: 2,
            text: "It is midnight.".into(),
        },
        complete("Let me check.[[tool:0]]It is midnight.", false),
    ];
    let mut sse = Vec::new();
    for (i, kind) in events.into_iter().enumerate() {
        sse.extend(t.translate(&event(i as u64 + 1, kind)));
    }
    let text = sse.concat();
    assert!(text.starts_with("data: {"), "{text}");
    assert!(text.contains("\"role\":\"assistant\""));
    assert!(!text.contains("[[tool:"), "{text}");
    assert!(!text.contains("id:"), "no SSE ids");
    assert_eq!(text.matches("\"finish_reason\":\"stop\"").count(), 1);
    assert!(text.ends_with("data: [DONE]\n\n"));
    let completion = t.completion().expect("finished");
    let content = completion.choices[0]
        .message
        .content
        .clone()
        .unwrap_or_default();
    assert!(
        content.starts_with("Let me check.\n\n> getCurrentTime {\"time_zone\":\"UTC\"} → {\"iso\""),
        "{content}"
    );
    assert!(content.ends_with("It is midnight."), "{content}");
    assert_eq!(completion.usage.total_tokens, 7);
}

fn start(index: u32, tool: &str) -> EventKind {
    EventKind::ToolStart {
        index,
        block_index: index,
        tool: tool.into(),
        tool_use_id: format!("c{index}"),
        input: json!({"word": "gato"}),
    }
}

fn done(index: u32, tool: &str, output: Value) -> EventKind {
    EventKind::ToolComplete {
        index,
        tool: tool.into(),
        tool_use_id: format!("c{index}"),
        state: ToolCallState::Success,
        output,
        payload: None,
        duration_ms: 1,
    }
}

#[test]
fn a_call_of_the_callers_function_ends_the_completion_once_the_rounds_calls_are_in() {
    let call = Uuid::now_v7();
    let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), false);
    let events = [
        start(0, "lookup"),
        start(1, "getCurrentTime"),
        EventKind::ClientCallRequested {
            index: 0,
            tool: "lookup".into(),
            tool_use_id: "c0".into(),
            call_id: call,
            input: json!({"word": "gato"}),
            expires_at: chrono::Utc::now(),
        },
        done(1, "getCurrentTime", json!({"iso": "noon"})),
        // The turn waits; nothing after its calls belongs to this completion.
        EventKind::TextDelta {
            index: 3,
            text: "later".into(),
        },
    ];
    let mut sse = Vec::new();
    for (i, kind) in events.into_iter().enumerate() {
        sse.push(t.translate(&event(i as u64 + 1, kind)).concat());
        assert_eq!(t.finished(), i >= 3, "after event {i}");
    }
    let text = sse.concat();
    assert_eq!(text.matches("\"finish_reason\":\"tool_calls\"").count(), 1);
    assert_eq!(text.matches("data: [DONE]").count(), 1);
    assert!(!text.contains("later"), "{text}");
    let completion = t.completion().expect("ended with the calls");
    let message = &completion.choices[0].message;
    let calls = message.tool_calls.as_ref().expect("tool_calls");
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].id, tool_call_id(call));
    assert_eq!(calls[0].function.arguments, r#"{"word":"gato"}"#);
    // The server's own call still reads as text beside it.
    assert!(
        message
            .content
            .as_deref()
            .unwrap_or_default()
            .contains("> getCurrentTime")
    );
}

#[test]
fn a_continuation_reads_the_resumed_attempt_without_the_replayed_calls() {
    let from = Continuing {
        attempt: 1,
        calls: 2,
    };
    let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), false).continuing(from);
    let events = [
        start(0, "lookup"),
        EventKind::TextDelta {
            index: 0,
            text: "told before".into(),
        },
        EventKind::Retry {
            attempt: 2,
            reason: "resumed".into(),
        },
        start(0, "lookup"),
        done(0, "lookup", json!("cat")),
        done(1, "getCurrentTime", json!({"iso": "noon"})),
        EventKind::TextDelta {
            index: 2,
            text: "It means cat.".into(),
        },
        complete("It means cat.", false),
    ];
    let mut sse = Vec::new();
    for (i, kind) in events.into_iter().enumerate() {
        sse.extend(t.translate(&event(i as u64 + 1, kind)));
    }
    let completion = t.completion().expect("finished");
    assert_eq!(completion.choices[0].finish_reason, "stop");
    assert_eq!(
        completion.choices[0].message.content.as_deref(),
        Some("It means cat.")
    );
    assert!(completion.choices[0].message.tool_calls.is_none());
}

#[test]
fn a_blocked_message_answers_with_the_modules_response() {
    let mut t = ChatTranslator::new("chatcmpl-x".into(), 1, "m".into(), false);
    let text = t
        .translate(&event(1, complete("I can't help with that.", true)))
        .concat();
    assert!(
        text.contains("\"finish_reason\":\"content_filter\""),
        "{text}"
    );
    let completion = t.completion().expect("finished");
    assert_eq!(
        completion.choices[0].message.content.as_deref(),
        Some("I can't help with that.")
    );
}
