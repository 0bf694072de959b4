//! Checks of what a log stores: `seq` gap-free from 1 (also under concurrent
//! appenders, and with the worker's writer among them) or from a floor, reads after any
//! offset, expiry, and `ping` refused.

use std::time::Duration;

use futures::future::join_all;
use parley_protocol::events::{EventKind, StreamEvent};
use uuid::Uuid;

use super::Backend;
use super::kit::{append, append_deltas, collect, complete, delta, read_all, seqs};
use crate::event_log::EventLogError;

pub async fn seq_is_gap_free_from_one(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    assert!(!log.exists(prompt_id).await.expect("exists"));
    assert_eq!(
        log.last(prompt_id).await.expect("last"),
        None,
        "an unknown log"
    );
    let mut appended = append_deltas(log, prompt_id, 5).await;
    appended.push(append(log, prompt_id, complete()).await);
    assert_eq!(seqs(&appended), (1..=6).collect::<Vec<_>>());
    assert!(appended.iter().all(|event| event.prompt_id == prompt_id));
    assert_eq!(read_all(log, prompt_id).await, appended);
    assert!(log.exists(prompt_id).await.expect("exists"));
    assert_eq!(
        log.last(prompt_id).await.expect("last"),
        appended.last().cloned()
    );
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
    assert_eq!(log.last(prompt_id).await.expect("last"), None);
    assert_eq!(append(log, prompt_id, delta(0)).await.seq, 1);
}

/// The worker's writer and other appenders (the api resuming, a background function
/// call) on one log: every event stored once, seqs gap-free, whatever the writer was
/// told about the log's end.
pub async fn a_writer_appends_gap_free_alongside_other_appenders(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let mut writer = log.writer(prompt_id, Some(0), 0);
    let mut appended = vec![writer.append(delta(0)).await.expect("append")];
    assert_eq!(appended[0].seq, 1, "a first attempt starts the log");
    appended.push(append(log, prompt_id, delta(1)).await);
    let writing = async {
        let mut mine = Vec::new();
        for n in 2..12 {
            mine.push(writer.append(delta(n)).await.expect("append"));
        }
        mine
    };
    let others = join_all((12..22).map(|n| append(log, prompt_id, delta(n))));
    let (mine, others) = tokio::join!(writing, others);
    appended.extend(mine);
    appended.extend(others);
    appended.sort_by_key(|event| event.seq);
    assert_eq!(seqs(&appended), (1..=22).collect::<Vec<_>>());
    assert_eq!(read_all(log, prompt_id).await, appended);

    // Told wrong, or told nothing: a writer still appends after the last event.
    for last_seq in [Some(0), Some(7), None] {
        let mut writer = log.writer(prompt_id, last_seq, 0);
        let next = appended.len() as u64 + 1;
        appended.push(writer.append(delta(0)).await.expect("append"));
        appended.push(writer.append(delta(1)).await.expect("append"));
        assert_eq!(seqs(&appended[appended.len() - 2..]), [next, next + 1]);
    }
    assert_eq!(read_all(log, prompt_id).await, appended);
    let refused = writer.append(EventKind::Ping { ts: 1 }).await;
    assert!(
        matches!(refused, Err(EventLogError::Internal(_))),
        "{refused:?}"
    );
}

/// A log that starts above a floor (a prompt whose log was lost runs again): the first
/// seq follows the floor, later floors are ignored, reads and subscriptions from any
/// seq below it get everything; a writer starts above its floor, goes on from a live
/// log's end whatever its floor, and starts again above everything it appended when the
/// log vanishes under it.
pub async fn an_empty_log_starts_above_its_floor(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let waiting = log.subscribe(prompt_id, 60);
    let mut appended = vec![
        log.append_above(prompt_id, 100, delta(0))
            .await
            .expect("append"),
    ];
    appended.push(
        log.append_above(prompt_id, 5, delta(1))
            .await
            .expect("append"),
    );
    appended.push(append(log, prompt_id, delta(2)).await);
    assert_eq!(
        seqs(&appended),
        [101, 102, 103],
        "above the first floor only"
    );
    assert_eq!(read_all(log, prompt_id).await, appended);
    let read = |after| async move { log.read(prompt_id, after, 10).await.expect("read") };
    assert_eq!(read(50).await, appended);
    assert_eq!(read(101).await, appended[1..]);
    assert!(read(103).await.is_empty());
    // A writer on a live log goes on from its end, whatever its floor.
    let mut writer = log.writer(prompt_id, None, 5000);
    appended.push(writer.append(complete()).await.expect("append"));
    assert_eq!(appended[3].seq, 104);
    assert_eq!(writer.next_seq(), Some(105));
    assert_eq!(
        collect(waiting).await,
        appended,
        "a reader holding seq 60 gets all"
    );

    // A first attempt's writer, told the log is empty, starts above its floor; so does
    // one told nothing.
    for last_seq in [Some(0), None] {
        let fresh = Uuid::now_v7();
        let mut writer = log.writer(fresh, last_seq, 1000);
        let first = writer.append(delta(0)).await.expect("append");
        assert_eq!(first.seq, 1001, "{last_seq:?}");
        assert_eq!(writer.append(delta(1)).await.expect("append").seq, 1002);
        // The log vanishes under the writer (its backend lost it): it starts again above
        // everything the writer appended, not above the writer's first floor.
        log.expire(fresh, Duration::ZERO).await.expect("expire");
        assert!(!log.exists(fresh).await.expect("exists"));
        let again = writer.append(delta(2)).await.expect("append");
        assert_eq!(again.seq, 1003, "{last_seq:?}");
        assert_eq!(read_all(log, fresh).await, [again]);
    }
}

/// A batch ([`EventWriter::append_all`](crate::event_log::EventWriter::append_all)): its
/// events get consecutive seqs after whatever came before, alongside other appenders;
/// reads and subscriptions from any seq — inside a batch too — get exactly the events
/// after it, one by one, and a subscriber that started before sees each batch whole.
pub async fn a_writer_appends_batches_readers_take_apart(backend: &Backend) {
    let log = &*backend.log;
    let prompt_id = Uuid::now_v7();
    let from_start = log.subscribe(prompt_id, 0);
    let mut writer = log.writer(prompt_id, Some(0), 0);
    let mut appended = writer
        .append_all(vec![delta(0), delta(1), delta(2)])
        .await
        .expect("append");
    assert_eq!(seqs(&appended), [1, 2, 3]);
    appended.push(append(log, prompt_id, delta(3)).await);
    // The writer's next batch is refused where it thought the log ended, and goes on
    // after the other appender's event.
    appended.extend(writer.append_all(vec![delta(4)]).await.expect("append"));
    appended.extend(
        writer
            .append_all(vec![delta(5), delta(6), complete()])
            .await
            .expect("append"),
    );
    assert_eq!(seqs(&appended), (1..=8).collect::<Vec<_>>());
    assert_eq!(writer.next_seq(), Some(9));
    assert!(
        writer
            .append_all(Vec::new())
            .await
            .expect("none")
            .is_empty(),
        "no events, no append"
    );
    assert_eq!(read_all(log, prompt_id).await, appended);
    for after in 0..8u64 {
        let rest = &appended[after as usize..];
        let read = log.read(prompt_id, after, 100).await.expect("read");
        assert_eq!(read, rest, "read after {after}");
        let two = log.read(prompt_id, after, 2).await.expect("read");
        assert_eq!(two, rest[..rest.len().min(2)], "two after {after}");
        assert_eq!(
            collect(log.subscribe(prompt_id, after)).await,
            rest,
            "a subscriber after {after}"
        );
    }
    assert_eq!(
        log.last(prompt_id).await.expect("last").as_ref(),
        appended.last()
    );
    assert_eq!(collect(from_start).await, appended);
    let refused = writer
        .append_all(vec![delta(9), EventKind::Ping { ts: 1 }])
        .await;
    assert!(
        matches!(refused, Err(EventLogError::Internal(_))),
        "{refused:?}"
    );
    assert_eq!(
        read_all(log, prompt_id).await,
        appended,
        "nothing of it stored"
    );
}
