use super::*;
use crate::event_log::conformance::{self, Backend, conformance_suite};

async fn backend() -> Backend {
    let log = MemoryEventLog::new();
    let probe = log.clone();
    let listeners = log.clone();
    Backend {
        log: Arc::new(log),
        held_for: Box::new(move |prompt_id| probe.subscriber_count(prompt_id)),
        cancel_listeners: Box::new(move |prompt_id| listeners.cancel_listeners(prompt_id)),
    }
}

conformance_suite!(backend);

#[tokio::test(start_paused = true)]
async fn the_sweep_drops_expired_and_abandoned_logs() {
    let log = MemoryEventLog::new();
    let (expired, abandoned, kept) = (Uuid::now_v7(), Uuid::now_v7(), Uuid::now_v7());
    log.append(expired, conformance::complete()).await.unwrap();
    log.expire(expired, Duration::from_secs(1)).await.unwrap();
    drop(log.subscribe(abandoned, 0));
    log.append(kept, conformance::delta(0)).await.unwrap();
    assert_eq!(log.log_count(), 3);
    tokio::time::advance(SWEEP_EVERY + Duration::from_secs(1)).await;
    log.append(kept, conformance::delta(1)).await.unwrap();
    assert_eq!(log.log_count(), 1);
    assert_eq!(log.read(kept, 0, 10).await.unwrap().len(), 2);
}

/// A log nobody expires goes after `MAX_AGE`; `prune` drops expired logs at once,
/// without waiting for the next append's sweep.
#[tokio::test(start_paused = true)]
async fn a_log_nobody_expires_goes_after_max_age_and_prune_drops_it() {
    let log = MemoryEventLog::new();
    let (forgotten, finished) = (Uuid::now_v7(), Uuid::now_v7());
    log.append(forgotten, conformance::delta(0)).await.unwrap();
    log.append(finished, conformance::complete()).await.unwrap();
    log.expire(finished, Duration::from_secs(60)).await.unwrap();
    tokio::time::advance(Duration::from_secs(61)).await;
    assert_eq!(
        log.prune().await.unwrap(),
        1,
        "the finished log's retention ended"
    );
    assert_eq!(log.log_count(), 1);
    tokio::time::advance(crate::event_log::MAX_AGE).await;
    assert_eq!(log.prune().await.unwrap(), 1, "a day old, never expired");
    assert_eq!(log.log_count(), 0);
    assert!(!log.exists(forgotten).await.unwrap());
}

/// Past the limit of finished logs the oldest unread one goes before its retention
/// ends; one with a reader stays, and a log expired again counts from then.
#[tokio::test]
async fn the_oldest_finished_logs_go_past_the_limit() {
    let log = MemoryEventLog::with_finished_limit(2);
    let ids: Vec<Uuid> = (0..5).map(|_| Uuid::now_v7()).collect();
    let retention = Duration::from_secs(3600);
    for id in &ids {
        log.append(*id, conformance::complete()).await.unwrap();
    }
    let reader = log.subscribe(ids[1], 0);
    log.expire(ids[0], retention).await.unwrap();
    log.expire(ids[1], retention).await.unwrap();
    log.expire(ids[2], retention).await.unwrap();
    assert!(
        !log.exists(ids[0]).await.unwrap(),
        "the oldest, unread, is gone"
    );
    log.expire(ids[3], retention).await.unwrap();
    assert!(
        log.exists(ids[1]).await.unwrap(),
        "read: kept until its retention"
    );
    // Expired again: listed anew, so the next eviction passes it by.
    log.expire(ids[2], retention).await.unwrap();
    log.expire(ids[4], retention).await.unwrap();
    assert!(!log.exists(ids[3]).await.unwrap());
    assert!(log.exists(ids[2]).await.unwrap());
    assert!(log.exists(ids[4]).await.unwrap());
    let events: Vec<_> = reader.collect().await;
    assert_eq!(events.len(), 1, "the reader still gets the whole log");
    // Without a limit nothing goes before its time.
    let unlimited = MemoryEventLog::new();
    for id in &ids {
        unlimited
            .append(*id, conformance::complete())
            .await
            .unwrap();
        unlimited.expire(*id, retention).await.unwrap();
    }
    for id in &ids {
        assert!(unlimited.exists(*id).await.unwrap());
    }
}
