//! The conformance suite every [`UserFeed`] backend must pass (DESIGN §13), built like
//! the event log's (`crate::event_log::conformance`): each check is a plain `async fn`
//! over a [`Backend`], [`conformance_suite!`] makes one `#[tokio::test]` of each for a
//! backend constructor. Every check uses fresh random user ids and bounds every wait.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use futures::stream::BoxStream;
use parley_protocol::feed::{UserEvent, UserEventKind};
use uuid::Uuid;

use super::{Result, Retention, UserFeed, clock_micros};

/// A backend under test.
pub struct Backend {
    pub feed: Arc<dyn UserFeed>,
    /// How many subscribers (or followed users) the backend still holds for a user;
    /// must drop to 0 once its subscribers are gone.
    pub held_for: Box<dyn Fn(Uuid) -> usize + Send + Sync>,
}

/// The retention the suite's backends are built with: small, so trimming shows.
pub const RETENTION: Retention = Retention {
    max_events: 5,
    max_age: Duration::from_secs(3600),
};

const WAIT: Duration = Duration::from_secs(10);

/// A stored event of session `n`.
pub fn created(n: u128) -> UserEventKind {
    UserEventKind::SessionCreated {
        session_id: Uuid::from_u128(n),
        tool_id: Uuid::nil(),
    }
}

async fn next(stream: &mut BoxStream<'static, Result<UserEvent>>) -> UserEvent {
    tokio::time::timeout(WAIT, stream.next())
        .await
        .expect("an event within the wait")
        .expect("the stream goes on")
        .expect("no backend failure")
}

async fn append(b: &Backend, user: Uuid, n: u128) -> UserEvent {
    b.feed
        .append(user, created(n))
        .await
        .expect("the feed answers")
}

pub async fn seqs_increase_from_above_the_clock(b: &Backend) {
    let user = Uuid::now_v7();
    let before = clock_micros();
    let mut last = 0;
    for n in 0..4 {
        let event = append(b, user, n).await;
        assert!(event.seq > last.max(before), "{} after {last}", event.seq);
        assert_eq!(event.kind, created(n));
        last = event.seq;
    }
}

pub async fn read_returns_the_events_after_a_seq(b: &Backend) {
    let user = Uuid::now_v7();
    let mut stored = Vec::new();
    for n in 0..3 {
        stored.push(append(b, user, n).await);
    }
    let all = b.feed.read(user, 0, 10).await.expect("the feed answers");
    assert!(!all.gap);
    assert_eq!(all.events, stored);
    let rest = b
        .feed
        .read(user, stored[0].seq, 10)
        .await
        .expect("the feed answers");
    assert!(!rest.gap);
    assert_eq!(rest.events, stored[1..]);
    let limited = b.feed.read(user, 0, 2).await.expect("the feed answers");
    assert_eq!(limited.events, stored[..2]);
    let none = b
        .feed
        .read(user, stored[2].seq, 10)
        .await
        .expect("the feed answers");
    assert!(!none.gap && none.events.is_empty());
}

pub async fn feeds_are_per_user(b: &Backend) {
    let (alice, bob) = (Uuid::now_v7(), Uuid::now_v7());
    append(b, alice, 1).await;
    let bobs = append(b, bob, 2).await;
    assert_eq!(
        b.feed
            .read(bob, 0, 10)
            .await
            .expect("the feed answers")
            .events,
        vec![bobs]
    );
}

pub async fn unknown_feed_is_empty_and_a_gap_after_any_seq(b: &Backend) {
    let user = Uuid::now_v7();
    let from_start = b.feed.read(user, 0, 10).await.expect("the feed answers");
    assert!(!from_start.gap && from_start.events.is_empty());
    assert!(
        b.feed
            .read(user, 42, 10)
            .await
            .expect("the feed answers")
            .gap
    );
}

pub async fn unstored_kinds_are_refused(b: &Backend) {
    let user = Uuid::now_v7();
    for kind in [
        UserEventKind::Ping { ts: 1 },
        UserEventKind::Reset,
        UserEventKind::Reconnect { retry_ms: 1 },
    ] {
        assert!(b.feed.append(user, kind).await.is_err());
    }
}

/// A reader older than what the feed keeps is told, and gets the oldest events kept.
pub async fn trimming_past_a_reader_is_a_gap(b: &Backend) {
    let user = Uuid::now_v7();
    let first = append(b, user, 0).await;
    // Redis trims approximately (whole nodes of 100 entries): append well past them.
    for n in 1..300 {
        append(b, user, n).await;
    }
    let read = b
        .feed
        .read(user, first.seq, 1000)
        .await
        .expect("the feed answers");
    assert!(read.gap, "the first events were trimmed");
    assert!(read.events.len() < 300 && !read.events.is_empty());
    assert_eq!(
        read.events.last().expect("the feed answers").kind,
        created(299)
    );
    let latest = read.events.last().expect("the feed answers").seq;
    assert!(
        !b.feed
            .read(user, latest, 10)
            .await
            .expect("the feed answers")
            .gap
    );
    let mut stream = b.feed.subscribe(user, first.seq);
    assert_eq!(next(&mut stream).await.kind, UserEventKind::Reset);
    assert_eq!(next(&mut stream).await, read.events[0]);
}

pub async fn a_subscriber_gets_the_backlog_then_live_events(b: &Backend) {
    let user = Uuid::now_v7();
    let first = append(b, user, 1).await;
    let mut from_start = b.feed.subscribe(user, 0);
    let mut after_first = b.feed.subscribe(user, first.seq);
    assert_eq!(next(&mut from_start).await, first);
    let second = append(b, user, 2).await;
    assert_eq!(next(&mut from_start).await, second);
    assert_eq!(next(&mut after_first).await, second);
    let others = b.feed.subscribe(Uuid::now_v7(), 0);
    drop(others);
    let third = append(b, user, 3).await;
    assert_eq!(next(&mut after_first).await, third);
    assert_eq!(next(&mut from_start).await, third);
}

pub async fn a_subscriber_of_a_new_feed_waits_for_its_first_event(b: &Backend) {
    let user = Uuid::now_v7();
    let mut stream = b.feed.subscribe(user, 0);
    assert!(
        tokio::time::timeout(Duration::from_millis(200), stream.next())
            .await
            .is_err(),
        "nothing yet"
    );
    let first = append(b, user, 1).await;
    assert_eq!(next(&mut stream).await, first);
}

pub async fn concurrent_appenders_get_distinct_increasing_seqs(b: &Backend) {
    let user = Uuid::now_v7();
    let appends = (0..5).map(|n| {
        let feed = b.feed.clone();
        tokio::spawn(async move {
            feed.append(user, created(n))
                .await
                .expect("the feed answers")
        })
    });
    let mut seqs: Vec<u64> = futures::future::join_all(appends)
        .await
        .into_iter()
        .map(|joined| joined.expect("the feed answers").seq)
        .collect();
    seqs.sort_unstable();
    seqs.dedup();
    assert_eq!(seqs.len(), 5, "distinct");
    let stored: Vec<u64> = (b
        .feed
        .read(user, 0, 100)
        .await
        .expect("the feed answers")
        .events)
        .iter()
        .map(|e| e.seq)
        .collect();
    assert_eq!(stored, seqs, "stored in seq order");
}

pub async fn dropped_subscribers_are_released(b: &Backend) {
    let user = Uuid::now_v7();
    append(b, user, 1).await;
    let mut one = b.feed.subscribe(user, 0);
    let mut two = b.feed.subscribe(user, 0);
    next(&mut one).await;
    next(&mut two).await;
    assert!((b.held_for)(user) > 0);
    drop(one);
    let later = append(b, user, 2).await;
    assert_eq!(next(&mut two).await, later);
    drop(two);
    assert_eq!((b.held_for)(user), 0);
}

/// Generates one `#[tokio::test]` per check for `$backend`, an `async fn() -> Backend`.
#[cfg(test)]
macro_rules! conformance_suite {
    ($backend:path) => {
        $crate::user_feed::conformance::conformance_suite!(@each $backend;
            seqs_increase_from_above_the_clock,
            read_returns_the_events_after_a_seq,
            feeds_are_per_user,
            unknown_feed_is_empty_and_a_gap_after_any_seq,
            unstored_kinds_are_refused,
            trimming_past_a_reader_is_a_gap,
            a_subscriber_gets_the_backlog_then_live_events,
            a_subscriber_of_a_new_feed_waits_for_its_first_event,
            concurrent_appenders_get_distinct_increasing_seqs,
            dropped_subscribers_are_released,
        );
    };
    (@each $backend:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                let backend = $backend().await;
                $crate::user_feed::conformance::$check(&backend).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;
