use super::*;
use crate::user_feed::conformance::{self, Backend, RETENTION, conformance_suite};

async fn backend() -> Backend {
    let feed = MemoryUserFeed::new(RETENTION);
    let probe = feed.clone();
    Backend {
        feed: Arc::new(feed),
        held_for: Box::new(move |user_id| probe.subscriber_count(user_id)),
    }
}

conformance_suite!(backend);

/// A feed past its age is dropped by `prune`; one with a subscriber starts again in
/// place, and the subscriber is told of the gap.
#[tokio::test(start_paused = true)]
async fn feeds_past_their_age_go_and_their_readers_are_told() {
    let feed = MemoryUserFeed::new(Retention {
        max_events: 10,
        max_age: std::time::Duration::from_secs(60),
    });
    let (idle, followed) = (Uuid::now_v7(), Uuid::now_v7());
    feed.append(idle, conformance::created(1)).await.unwrap();
    let first = feed
        .append(followed, conformance::created(2))
        .await
        .unwrap();
    let mut stream = feed.subscribe(followed, first.seq);
    let waiting = tokio::time::timeout(std::time::Duration::from_millis(10), stream.next());
    assert!(waiting.await.is_err(), "nothing after the first event yet");
    tokio::time::advance(std::time::Duration::from_secs(60)).await;
    assert_eq!(feed.prune().await.unwrap(), 2);
    assert_eq!(
        feed.feed_count(),
        1,
        "the followed feed stays, started again"
    );
    assert!(feed.read(idle, 1, 10).await.unwrap().gap);
    let next = feed
        .append(followed, conformance::created(3))
        .await
        .unwrap();
    assert!(next.seq > first.seq);
    assert_eq!(
        stream.next().await.unwrap().unwrap().kind,
        UserEventKind::Reset
    );
    assert_eq!(stream.next().await.unwrap().unwrap(), next);
}
