//! Events the translators' tests feed them.

use parley_protocol::events::{ChatResponsePayload, EventKind, Usage};
use uuid::Uuid;

/// A turn's `complete` with `message` (5 tokens in, 2 out).
pub(crate) fn complete(message: &str, blocked: bool) -> EventKind {
    EventKind::Complete {
        message_id: Uuid::nil(),
        parent_id: None,
        payload: ChatResponsePayload {
            message: message.into(),
            custom_payload: None,
            suggested_values: None,
            suggested_actions: None,
            tool_history: None,
        },
        usage: Usage::plain(5, 2),
        model: "mock-model".into(),
        vendor: "mock".into(),
        latency_ms: 2500,
        blocked,
        block_category: None,
        replaced: false,
        fallback_from: None,
        fallback_reason: None,
        stop_reason: None,
    }
}
