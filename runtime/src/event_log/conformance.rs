//! The conformance suite every [`EventLog`] backend must pass (DESIGN §1).
//!
//! Each check is a plain `async fn` over a [`Backend`] so the same bodies run against the
//! in-process and the Redis log; [`conformance_suite!`] turns them into one `#[tokio::test]`
//! each for a backend constructor. Every check uses fresh random prompt ids, so the
//! checks run in parallel against one Redis, and bounds every wait, so a stuck stream
//! fails the check instead of hanging the suite. Compiled for this crate's tests and,
//! with the `conformance` feature, for other crates'.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::future::join_all;
use futures::stream::BoxStream;
use parley_protocol::events::{
    BlockType, ChatResponsePayload, EventKind, PromptState, StreamEvent, Usage,
};
use uuid::Uuid;

use super::{EventLog, EventLogError, Result};

/// A backend under test.
pub struct Backend {
    pub log: Arc<dyn EventLog>,
    /// How many local resources (subscriptions, pub/sub channels) the backend still holds
    /// for a prompt; must drop to 0 once its subscribers are gone.
    pub held_for: Box<dyn Fn(Uuid) -> usize + Send + Sync>,
}

/// Generates one `#[tokio::test]` per check for `$backend`, an `async fn() -> Backend`.
macro_rules! conformance_suite {
    ($backend:path) => {
        $crate::event_log::conformance::conformance_suite!(@each $backend;
            seq_is_gap_free_from_one,
            read_returns_the_events_after_an_offset,
            subscriber_from_start_gets_every_event_then_ends,
            subscriber_joining_mid_way_gets_exactly_the_rest,
            concurrent_subscribers_see_identical_sequences,
            concurrent_appenders_get_gap_free_seqs,
            subscriber_after_the_end_gets_the_remainder_and_ends,
            a_resumed_log_goes_on_after_its_terminal_event,
            long_backlog_is_delivered_in_order,
            expired_log_is_gone,
            expiry_ends_a_waiting_subscriber,
            ping_is_refused,
            dropped_subscriber_leaves_others_intact_and_is_released,
        );
    };
    (@each $backend:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                let backend = $backend().await;
                $crate::event_log::conformance::$check(&backend).await;
            }
        )*
    };
}
pub(crate) use conformance_suite;

const PATIENCE: Duration = Duration::from_secs(10);

async fn within<T>(what: &str, limit: Duration, future: impl Future<Output = T>) -> T {
    tokio::time::timeout(limit, future)
        .await
        .unwrap_or_else(|_| panic!("timed out after {limit:?}: {what}"))
}

/// Collects a stream to its end, failing on an error or after [`PATIENCE`].
async fn collect(stream: BoxStream<'static, Result<StreamEvent>>) -> Vec<StreamEvent> {
    let items: Vec<_> = within("the stream to end", PATIENCE, stream.collect()).await;
    items
        .into_iter()
        .map(|item| item.expect("the stream yields events"))
        .collect()
}

async fn next(stream: &mut BoxStream<'static, Result<StreamEvent>>) -> StreamEvent {
    within("the next event", PATIENCE, stream.next())
        .await
        .expect("the stream goes on")
        .expect("the stream yields events")
}

/// Waits until `condition` holds, failing after [`PATIENCE`].
async fn eventually(what: &str, condition: impl Fn() -> bool) {
    within(what, PATIENCE, async {
        while !condition() {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
}

fn seqs(events: &[StreamEvent]) -> Vec<u64> {
    events.iter().map(|event| event.seq).collect()
}

/// A non-terminal event, different for each `n`.
pub fn delta(n: u32) -> EventKind {
    match n % 4 {
        0 => EventKind::PromptState {
            state: PromptState::InProgress,
            attempt: n,
        },
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
        payload: ChatResponsePayload {
            message: "done".into(),
            ..Default::default()
        },
        usage: Usage {
            input_tokens: 3,
            output_tokens: 5,
        },
        model: "mock".into(),
        vendor: "test".into(),
        latency_ms: 12,
        blocked: false,
        replaced: false,
    }
}

async fn append(log: &dyn EventLog, prompt_id: Uuid, kind: EventKind) -> StreamEvent {
    log.append(prompt_id, kind).await.expect("append")
}

/// Appends `count` deltas (seqs continuing the log) and returns them.
async fn append_deltas(log: &dyn EventLog, prompt_id: Uuid, count: u32) -> Vec<StreamEvent> {
    let mut out = Vec::new();
    for n in 0..count {
        out.push(append(log, prompt_id, delta(n)).await);
    }
    out
}

async fn read_all(log: &dyn EventLog, prompt_id: Uuid) -> Vec<StreamEvent> {
    log.read(prompt_id, 0, 100_000).await.expect("read")
}

pub async fn seq_is_gap_free_from_one(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    assert!(!log.exists(prompt_id).await.expect("exists"));
    let mut appended = append_deltas(log, prompt_id, 5).await;
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(seqs(&appended), (1..=6).collect::<Vec<_>>());
    assert!(appended.iter().all(|event| event.prompt_id == prompt_id));
    assert_eq!(read_all(log, prompt_id).await, appended);
    assert!(log.exists(prompt_id).await.expect("exists"));
    // Logs are per prompt.
    let other = Uuid::now_v7();
    assert_eq!(append(log, other, delta(0)).await.seq, 1);
    log.ready().await.expect("ready");
}

pub async fn read_returns_the_events_after_an_offset(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let appended = append_deltas(log, prompt_id, 10).await;
    let read = |after, limit| async move { log.read(prompt_id, after, limit).await.expect("read") };
    assert_eq!(read(4, 3).await, appended[4..7]);
    assert_eq!(read(7, 100).await, appended[7..]);
    assert_eq!(read(0, 10).await, appended);
    assert!(read(10, 5).await.is_empty());
    assert!(read(u64::MAX, 5).await.is_empty());
    assert!(read(0, 0).await.is_empty());
    assert!(
        log.read(Uuid::now_v7(), 0, 10)
            .await
            .expect("read")
            .is_empty()
    );
}

pub async fn subscriber_from_start_gets_every_event_then_ends(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    // Subscribed before the first event exists, as `POST …/messages` does.
    let subscription = log.subscribe(prompt_id, 0);
    let writer = async {
        let mut appended = Vec::new();
        for n in 0..8 {
            tokio::time::sleep(Duration::from_millis(5)).await;
            appended.push(append(log, prompt_id, delta(n)).await);
        }
        appended.push(append(log, prompt_id, complete()).await);
        appended
    };
    let (seen, appended) = tokio::join!(collect(subscription), writer);
    assert_eq!(seen, appended);
    assert_eq!(seqs(&seen), (1..=9).collect::<Vec<_>>());
}

pub async fn subscriber_joining_mid_way_gets_exactly_the_rest(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let first = append_deltas(log, prompt_id, 4).await;
    let subscription = log.subscribe(prompt_id, 2);
    let writer = async {
        let mut appended = first[2..].to_vec();
        for n in 4..7 {
            tokio::time::sleep(Duration::from_millis(5)).await;
            appended.push(append(log, prompt_id, delta(n)).await);
        }
        appended.push(append(log, prompt_id, complete()).await);
        appended
    };
    let (seen, expected) = tokio::join!(collect(subscription), writer);
    assert_eq!(seqs(&seen), (3..=8).collect::<Vec<_>>());
    assert_eq!(seen, expected);
}

pub async fn concurrent_subscribers_see_identical_sequences(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    append_deltas(log, prompt_id, 3).await;
    let readers = join_all((0..3).map(|_| collect(log.subscribe(prompt_id, 0))));
    let writer = async {
        for n in 3..40 {
            tokio::time::sleep(Duration::from_millis(2)).await;
            append(log, prompt_id, delta(n)).await;
        }
        append(log, prompt_id, complete()).await;
    };
    let (seen, ()) = tokio::join!(readers, writer);
    let stored = read_all(log, prompt_id).await;
    assert_eq!(seqs(&stored), (1..=41).collect::<Vec<_>>());
    for reader in seen {
        assert_eq!(reader, stored);
    }
}

pub async fn concurrent_appenders_get_gap_free_seqs(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let appenders = (0..20).map(|writer| async move {
        let mut mine = Vec::new();
        for n in 0..5 {
            mine.push(append(log, prompt_id, delta(writer * 5 + n)).await);
        }
        mine
    });
    let mut appended: Vec<StreamEvent> = join_all(appenders).await.concat();
    appended.sort_by_key(|event| event.seq);
    assert_eq!(seqs(&appended), (1..=100).collect::<Vec<_>>());
    assert_eq!(read_all(log, prompt_id).await, appended);
}

pub async fn subscriber_after_the_end_gets_the_remainder_and_ends(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let mut appended = append_deltas(log, prompt_id, 5).await;
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(collect(log.subscribe(prompt_id, 0)).await, appended);
    assert_eq!(collect(log.subscribe(prompt_id, 4)).await, appended[4..]);
    // Joined after the terminal event (`Last-Event-ID` of `complete`): nothing, and done.
    assert!(collect(log.subscribe(prompt_id, 6)).await.is_empty());
    log.expire(prompt_id, Duration::from_secs(60))
        .await
        .expect("expire");
    assert_eq!(collect(log.subscribe(prompt_id, 2)).await, appended[2..]);
}

/// A resumed prompt: its failed attempt ended with `error`, a new attempt appends
/// `retry` and more. A subscriber from the start follows past the first terminal event to
/// the last one; one that was waiting at the end of the first attempt has ended.
pub async fn a_resumed_log_goes_on_after_its_terminal_event(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let mut appended = append_deltas(log, prompt_id, 2).await;
    let failed = EventKind::Error {
        code: parley_protocol::events::ErrorCode::UpstreamError,
        message: "down".into(),
        retryable: true,
    };
    appended.push(append(log, prompt_id, failed).await);
    assert_eq!(
        collect(log.subscribe(prompt_id, 0)).await,
        appended,
        "the first attempt ends its readers"
    );
    appended.push(
        append(
            log,
            prompt_id,
            EventKind::Retry {
                attempt: 2,
                reason: "resumed".into(),
            },
        )
        .await,
    );
    let waiting = log.subscribe(prompt_id, 0);
    appended.extend(append_deltas(log, prompt_id, 2).await);
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(
        collect(waiting).await,
        appended,
        "a reader from the start follows the new attempt"
    );
    assert_eq!(collect(log.subscribe(prompt_id, 1)).await, appended[1..]);
}

pub async fn long_backlog_is_delivered_in_order(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let count = 3 * super::READ_BATCH as u32 / 2;
    let mut appended = append_deltas(log, prompt_id, count).await;
    let subscription = log.subscribe(prompt_id, 1);
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(collect(subscription).await, appended[1..]);
}

pub async fn expired_log_is_gone(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    append_deltas(log, prompt_id, 3).await;
    append(log, prompt_id, complete()).await;
    log.expire(prompt_id, Duration::from_secs(1))
        .await
        .expect("expire");
    assert_eq!(
        read_all(log, prompt_id).await.len(),
        4,
        "readable until then"
    );
    assert!(log.exists(prompt_id).await.expect("exists"));
    tokio::time::sleep(Duration::from_millis(1500)).await;
    assert!(read_all(log, prompt_id).await.is_empty());
    assert!(!log.exists(prompt_id).await.expect("exists"));
    // Expiring an unknown or already expired log is not an error.
    log.expire(prompt_id, Duration::from_secs(1))
        .await
        .expect("expire again");
}

pub async fn expiry_ends_a_waiting_subscriber(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    append_deltas(log, prompt_id, 2).await;
    let mut subscription = log.subscribe(prompt_id, 0);
    next(&mut subscription).await;
    next(&mut subscription).await;
    // A turn abandoned without a terminal event, expired by a reaper.
    log.expire(prompt_id, Duration::from_secs(1))
        .await
        .expect("expire");
    let end = within("the stream to end", PATIENCE, subscription.next()).await;
    assert!(end.is_none(), "expected the end, got {end:?}");
}

pub async fn ping_is_refused(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let refused = log.append(prompt_id, EventKind::Ping { ts: 1 }).await;
    assert!(
        matches!(refused, Err(EventLogError::Internal(_))),
        "{refused:?}"
    );
    assert!(read_all(log, prompt_id).await.is_empty());
    assert!(!log.exists(prompt_id).await.expect("exists"));
    assert_eq!(append(log, prompt_id, delta(0)).await.seq, 1);
}

pub async fn dropped_subscriber_leaves_others_intact_and_is_released(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let mut first = append_deltas(log, prompt_id, 2).await;
    let mut leaving = log.subscribe(prompt_id, 0);
    let mut staying = log.subscribe(prompt_id, 0);
    for subscription in [&mut leaving, &mut staying] {
        assert_eq!(next(subscription).await, first[0]);
        assert_eq!(next(subscription).await, first[1]);
        // Caught up: now it waits for live events (and holds whatever that takes).
        let pending = tokio::time::timeout(Duration::from_millis(100), subscription.next());
        assert!(pending.await.is_err(), "no third event yet");
    }
    let held = |id| (backend.held_for)(id);
    eventually("the subscribers to be registered", || held(prompt_id) > 0).await;
    drop(leaving);
    for n in 2..6 {
        first.push(append(log, prompt_id, delta(n)).await);
    }
    first.push(append(log, prompt_id, complete()).await);
    let mut rest = vec![next(&mut staying).await];
    rest.extend(collect(staying).await);
    assert_eq!(rest, first[2..]);
    eventually("everything held for the prompt to be released", || {
        held(prompt_id) == 0
    })
    .await;
}
