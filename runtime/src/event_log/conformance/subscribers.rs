//! Checks of following a log: a subscriber gets every event after its starting point
//! exactly once and in order, whenever it joins (before the first event, mid-way, after
//! the end), alongside other subscribers; its stream ends after the last terminal event
//! (not after a resumed prompt's earlier one) or when the log expires; and dropping it
//! releases what it held without disturbing the others.

use std::time::Duration;

use futures::StreamExt;
use futures::future::join_all;
use parley_protocol::error::ErrorCode;
use parley_protocol::events::EventKind;
use uuid::Uuid;

use super::Backend;
use super::kit::{
    PATIENCE, append, append_deltas, collect, complete, delta, eventually, next, read_all, seqs,
    within,
};
use crate::event_log::{READ_BATCH, SharedEvent};

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
        code: ErrorCode::UpstreamError,
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
    let count = 3 * READ_BATCH as u32 / 2;
    let mut appended = append_deltas(log, prompt_id, count).await;
    let subscription = log.subscribe(prompt_id, 1);
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(collect(subscription).await, appended[1..]);
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

/// Subscribers that follow a log written by a worker's writer and other appenders at
/// once see exactly what was stored, in order.
pub async fn subscribers_follow_a_writer_among_other_appenders(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let readers = join_all((0..3).map(|_| collect(log.subscribe(prompt_id, 0))));
    let writing = async {
        let mut writer = log.writer(prompt_id, Some(0), 0);
        let others = async {
            for n in 100..110 {
                tokio::time::sleep(Duration::from_millis(3)).await;
                append(log, prompt_id, delta(n)).await;
            }
        };
        let own = async {
            for n in 0..30 {
                tokio::time::sleep(Duration::from_millis(1)).await;
                writer.append(delta(n)).await.expect("append");
            }
        };
        tokio::join!(others, own);
        writer.append(complete()).await.expect("append");
    };
    let (seen, ()) = tokio::join!(readers, writing);
    let stored = read_all(log, prompt_id).await;
    assert_eq!(seqs(&stored), (1..=41).collect::<Vec<_>>());
    for reader in seen {
        assert_eq!(reader, stored);
    }
}

/// `subscribe_shared` delivers what `subscribe` does — every event once, in order, from
/// any starting point, to the end — to many readers at once while the log is written.
pub async fn shared_subscribers_see_what_subscribers_see(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    append_deltas(log, prompt_id, 3).await;
    let shared = |after| {
        log.subscribe_shared(prompt_id, after)
            .map(|event| event.map(SharedEvent::into_event))
            .boxed()
    };
    let readers = join_all((0..5).map(|n| collect(shared(n % 3))));
    let writer = async {
        for n in 3..30 {
            tokio::time::sleep(Duration::from_millis(2)).await;
            append(log, prompt_id, delta(n)).await;
        }
        append(log, prompt_id, complete()).await;
    };
    let (seen, ()) = tokio::join!(readers, writer);
    let stored = read_all(log, prompt_id).await;
    assert_eq!(seqs(&stored), (1..=31).collect::<Vec<_>>());
    for (n, reader) in seen.into_iter().enumerate() {
        assert_eq!(reader, stored[n % 3..], "reader {n}");
    }
    assert_eq!(collect(shared(31)).await, [], "after the terminal event");
}
