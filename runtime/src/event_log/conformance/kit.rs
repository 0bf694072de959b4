//! What the event-log checks are built from: bounded waits (every wait gives up after
//! [`PATIENCE`]), the events they append ([`delta`], [`complete`], also for other
//! crates' tests) and shorthands for appending and reading.

use std::future::Future;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use parley_protocol::events::{
    BlockType, ChatResponsePayload, EventKind, PromptState, StreamEvent, Usage,
};
use uuid::Uuid;

use crate::event_log::{EventLog, Result};

pub(super) const PATIENCE: Duration = Duration::from_secs(10);

pub(super) async fn within<T>(what: &str, limit: Duration, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, future)
        .await
        .unwrap_or_else(|_| panic!("timed out after {limit:?}: {what}"))
}

/// Collects a stream to its end, failing on an error or after [`PATIENCE`].
pub(super) async fn collect(stream: BoxStream<'static, Result<StreamEvent>>) -> Vec<StreamEvent> {
    let items: Vec<_> = within("the stream to end", PATIENCE, stream.collect()).await;
    items
        .into_iter()
        .map(|item| item.expect("the stream yields events"))
        .collect()
}

pub(super) async fn next(stream: &mut BoxStream<'static, Result<StreamEvent>>) -> StreamEvent {
    within("the next event", PATIENCE, stream.next())
        .await
        .expect("the stream goes on")
        .expect("the stream yields events")
}

/// Waits until `condition` holds, failing after [`PATIENCE`].
pub(super) async fn eventually(what: &str, condition: impl Fn() -> bool) {
    within(what, PATIENCE, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

pub(super) fn seqs(events: &[StreamEvent]) -> Vec<u64> {
    events.iter().map(|event| event.seq).collect()
}

/// A non-terminal event, different for each `n`.
pub fn delta(n: u32) -> EventKind {
    match n % 4 {
        0 => EventKind::state(PromptState::InProgress, n),
        1 => EventKind::BlockStart {
            index: n,
            block_type: BlockType::Text,
        },
        2 => EventKind::TextDelta {
            index: n,
            text: format!("token {n} — ünïcode ✓"),
        },
        _ => EventKind::BlockStop { index: n },
    }
}

/// A terminal event.
pub fn complete() -> EventKind {
    EventKind::Complete {
        message_id: Uuid::now_v7(),
        parent_id: None,
        payload: ChatResponsePayload {
            message: "done".into(),
            ..Default::default()
        },
        usage: Usage::plain(3, 5),
        model: "mock".into(),
        vendor: "test".into(),
        latency_ms: 12,
        blocked: false,
        block_category: None,
        replaced: false,
        fallback_from: None,
        fallback_reason: None,
        stop_reason: None,
    }
}

pub(super) async fn append(log: &dyn EventLog, prompt_id: Uuid, kind: EventKind) -> StreamEvent {
    log.append(prompt_id, kind).await.expect("append")
}

/// Appends `count` deltas (seqs continuing the log) and returns them.
pub(super) async fn append_deltas(
    log: &dyn EventLog,
    prompt_id: Uuid,
    count: u32,
) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for n in 0..count {
        out.push(append(log, prompt_id, delta(n)).await);
    }
    out
}

pub(super) async fn read_all(log: &dyn EventLog, prompt_id: Uuid) -> Vec<StreamEvent> {
    log.read(prompt_id, 0, 100_000).await.expect("read")
}
