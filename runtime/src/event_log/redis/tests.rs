//! The conformance suite against a live Redis, plus checks of what only the Redis log
//! has: its key layout, the shared pub/sub connection and its recovery.

use std::sync::Arc;

use ::redis::aio::MultiplexedConnection;
use futures::StreamExt;

use super::*;
use crate::event_log::conformance::{self, Backend, conformance_suite};
use crate::test_redis::{OwnServer, command_counts, free_port};

use crate::test_redis::shared_url as redis_url;

async fn connect() -> RedisEventLog {
    RedisEventLog::connect(&redis_url())
        .await
        .expect("connect to PARLEY_TEST_REDIS_URL")
}

async fn raw() -> MultiplexedConnection {
    ::redis::Client::open(redis_url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

fn holds(log: &RedisEventLog, prompt_id: Uuid) -> bool {
    log.active_channels().contains(&keys::notify(prompt_id))
}

async fn backend() -> Backend {
    backend_of(connect().await)
}

fn backend_of(log: RedisEventLog) -> Backend {
    let probe = log.clone();
    let listeners = log.clone();
    Backend {
        log: Arc::new(log),
        held_for: Box::new(move |prompt_id| usize::from(holds(&probe, prompt_id))),
        cancel_listeners: Box::new(move |prompt_id| listeners.cancel_listeners(prompt_id)),
    }
}

conformance_suite!(backend);

/// The same guarantees on a Redis Cluster (sharded pub/sub).
mod on_cluster {
    use super::*;

    async fn backend() -> Backend {
        let url = crate::test_redis::cluster_url();
        backend_of(
            RedisEventLog::connect(&url)
                .await
                .expect("connect to the cluster"),
        )
    }

    conformance_suite!(backend);
}

/// Redis's own count of subscribers to the prompt's notify channel.
async fn numsub(prompt_id: Uuid) -> u64 {
    let (_, count): (String, u64) = ::redis::cmd("PUBSUB")
        .arg("NUMSUB")
        .arg(keys::notify(prompt_id))
        .query_async(&mut raw().await)
        .await
        .unwrap();
    count
}

/// A prompt's stream entries as stored: `(id, [(field, value)])`.
async fn entries_of(prompt_id: Uuid) -> Vec<(String, Vec<(String, String)>)> {
    ::redis::cmd("XRANGE")
        .arg(keys::events(prompt_id))
        .arg("-")
        .arg("+")
        .query_async(&mut raw().await)
        .await
        .unwrap()
}

async fn eventually(what: &str, mut condition: impl AsyncFnMut() -> bool) {
    for _ in 0..250 {
        if condition().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("timed out: {what}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn entries_are_seq_ids_with_the_kind_as_json() {
    let log = connect().await;
    let prompt_id = Uuid::now_v7();
    let event = log.append(prompt_id, conformance::delta(2)).await.unwrap();
    let entries = entries_of(prompt_id).await;
    let kind = serde_json::to_string(&event.kind).unwrap();
    assert_eq!(entries.len(), 1, "{entries:?}");
    let (id, fields) = &entries[0];
    assert_eq!(id, "1-0");
    // The kind, and the append's tag (what a writer that lost the reply looks for).
    assert_eq!(fields[0], ("k".to_owned(), kind), "{fields:?}");
    assert_eq!(fields[1].0, "n", "{fields:?}");
    assert!(
        fields[1].1.len() == 16 && fields[1].1.bytes().all(|b| b.is_ascii_hexdigit()),
        "{fields:?}"
    );
    let ttl = || async {
        ::redis::cmd("PTTL")
            .arg(keys::events(prompt_id))
            .query_async::<i64>(&mut raw().await)
            .await
            .unwrap()
    };
    // A new log lives at most a day (its finish sets the retention instead); the
    // writer's first append sets the same.
    let day = crate::event_log::MAX_AGE.as_millis() as i64;
    assert!(
        (day - 60_000..=day).contains(&ttl().await),
        "{}",
        ttl().await
    );
    log.append(prompt_id, conformance::delta(3)).await.unwrap();
    log.expire(prompt_id, Duration::from_secs(30))
        .await
        .unwrap();
    assert!((1..=30_000).contains(&ttl().await));
    // Appending to a log with its retention keeps the retention.
    log.append(prompt_id, conformance::delta(4)).await.unwrap();
    assert!((1..=30_000).contains(&ttl().await));
    let fresh = Uuid::now_v7();
    log.writer(fresh, Some(0), 0)
        .append(conformance::delta(0))
        .await
        .unwrap();
    let fresh_ttl: i64 = ::redis::cmd("PTTL")
        .arg(keys::events(fresh))
        .query_async(&mut raw().await)
        .await
        .unwrap();
    assert!((day - 60_000..=day).contains(&fresh_ttl), "{fresh_ttl}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_of_one_prompt_share_one_channel() {
    let log = connect().await;
    let prompt_id = Uuid::now_v7();
    log.append(prompt_id, conformance::delta(0)).await.unwrap();
    let mut readers: Vec<_> = (0..50).map(|_| log.subscribe(prompt_id, 0)).collect();
    for reader in &mut readers {
        assert_eq!(reader.next().await.unwrap().unwrap().seq, 1);
        let pending = tokio::time::timeout(Duration::from_millis(20), reader.next());
        assert!(pending.await.is_err());
    }
    eventually("the channel to be subscribed", async || {
        holds(&log, prompt_id)
    })
    .await;
    assert_eq!(log.active_channels(), [keys::notify(prompt_id)]);
    assert_eq!(
        numsub(prompt_id).await,
        1,
        "one subscription for 50 readers"
    );
    log.append(prompt_id, conformance::complete())
        .await
        .unwrap();
    for reader in readers {
        let rest: Vec<_> = reader.map(Result::unwrap).collect().await;
        assert_eq!(rest.len(), 1);
        assert!(rest[0].kind.is_terminal());
    }
    eventually("the channel to be unsubscribed", async || {
        log.active_channels().is_empty() && numsub(prompt_id).await == 0
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn readers_survive_a_lost_pubsub_connection() {
    let log = connect().await;
    let prompt_id = Uuid::now_v7();
    log.append(prompt_id, conformance::delta(0)).await.unwrap();
    let mut reader = log.subscribe(prompt_id, 0);
    assert_eq!(reader.next().await.unwrap().unwrap().seq, 1);
    let pending = tokio::time::timeout(Duration::from_millis(50), reader.next());
    assert!(pending.await.is_err());
    eventually("the channel to be subscribed", async || {
        holds(&log, prompt_id)
    })
    .await;
    log.drop_pubsub_connection().await;
    for n in 1..4 {
        log.append(prompt_id, conformance::delta(n)).await.unwrap();
    }
    log.append(prompt_id, conformance::complete())
        .await
        .unwrap();
    let rest: Vec<_> = tokio::time::timeout(Duration::from_secs(5), reader.collect::<Vec<_>>())
        .await
        .expect("the reader catches up after the reconnect");
    let seqs: Vec<u64> = rest.into_iter().map(|event| event.unwrap().seq).collect();
    assert_eq!(seqs, [2, 3, 4, 5]);
    // The new connection serves new readers.
    let other = Uuid::now_v7();
    let mut reader = log.subscribe(other, 0);
    let writer = async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        log.append(other, conformance::delta(0)).await.unwrap();
    };
    let (first, ()) = tokio::join!(
        tokio::time::timeout(Duration::from_millis(1500), reader.next()),
        writer
    );
    assert_eq!(
        first.expect("notified, not polled").unwrap().unwrap().seq,
        1
    );
}

/// What one turn costs the log in Redis: each append of the worker's writer is one
/// `XADD` and one `PUBLISH` (no script, no read), plus the new log's `PEXPIRE` in its
/// first append's round trip, and a reader from the start one `SUBSCRIBE`, one `XRANGE`
/// and one `UNSUBSCRIBE`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_turn_costs_two_commands_per_event_and_three_per_reader() {
    let server = OwnServer::start();
    let log = log_on(&server).await;
    let prompt_id = Uuid::now_v7();
    let counted = [
        "xadd",
        "publish",
        "evalsha",
        "eval",
        "xrevrange",
        "xrange",
        "pexpire",
    ];
    let counted = counted.as_slice();
    let before = command_counts(&server.url(), counted).await;
    let reader = log.subscribe(prompt_id, 0);
    let writing = async {
        eventually("the reader to subscribe", async || holds(&log, prompt_id)).await;
        let mut writer = log.writer(prompt_id, Some(0), 0);
        for n in 0..6 {
            writer.append(conformance::delta(n)).await.unwrap();
        }
        writer.append(conformance::complete()).await.unwrap();
    };
    let (seen, ()) = tokio::join!(reader.collect::<Vec<_>>(), writing);
    assert_eq!(seen.len(), 7);
    let after = command_counts(&server.url(), counted).await;
    let spent: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // The new log's deadline is the one command more than two per event.
    assert_eq!(spent, [7, 7, 0, 0, 0, 1, 1], "{counted:?}");
    eventually("the channel to be unsubscribed", async || {
        !holds(&log, prompt_id)
    })
    .await;
    let subscriptions = command_counts(&server.url(), &["subscribe", "unsubscribe"]).await;
    assert_eq!(subscriptions, [1, 1]);
}

/// Readers that fall far behind the live events (they are not polled while 300 events
/// are appended) catch up from the topic's window: one `XRANGE` each, when they start,
/// and none for the live events, however many readers follow the prompt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_readers_catch_up_without_reading_the_stream_again() {
    let server = OwnServer::start();
    let log = log_on(&server).await;
    let prompt_id = Uuid::now_v7();
    let counted = ["xrange", "xrevrange"];
    let before = command_counts(&server.url(), &counted).await;
    let mut readers: Vec<_> = (0..20).map(|_| log.subscribe(prompt_id, 0)).collect();
    let mut writer = log.writer(prompt_id, Some(0), 0);
    writer.append(conformance::delta(0)).await.unwrap();
    // Every reader has read the stored event and joined the topic.
    for reader in &mut readers {
        let first = tokio::time::timeout(Duration::from_secs(5), reader.next()).await;
        assert_eq!(first.expect("the first event").unwrap().unwrap().seq, 1);
    }
    for n in 1..300 {
        writer.append(conformance::delta(n)).await.unwrap();
    }
    writer.append(conformance::complete()).await.unwrap();
    for reader in readers {
        let rest: Vec<u64> =
            tokio::time::timeout(Duration::from_secs(10), reader.collect::<Vec<_>>())
                .await
                .expect("the rest of the log")
                .into_iter()
                .map(|event| event.unwrap().seq)
                .collect();
        assert_eq!(rest, (2..=301).collect::<Vec<u64>>());
    }
    let after = command_counts(&server.url(), &counted).await;
    let spent: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(
        spent,
        [20, 0],
        "{counted:?}: one read per reader, at its start"
    );
}

/// Readers waiting on a quiet log take turns looking at the stream: one read per
/// [`POLL_EVERY`] for the topic, not one per reader; what it finds reaches them all.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_readers_of_one_prompt_poll_the_stream_once_between_them() {
    let server = OwnServer::start();
    let log = log_on(&server).await;
    let prompt_id = Uuid::now_v7();
    log.append(prompt_id, conformance::delta(0)).await.unwrap();
    let mut readers: Vec<_> = (0..20).map(|_| log.subscribe(prompt_id, 0)).collect();
    for reader in &mut readers {
        let first = tokio::time::timeout(Duration::from_secs(5), reader.next()).await;
        assert_eq!(first.expect("the stored event").unwrap().unwrap().seq, 1);
    }
    let counted = ["xrevrange"];
    let before = command_counts(&server.url(), &counted).await;
    // Quiet for two and a half poll periods, then an event nobody announces.
    let waiting: Vec<_> = readers
        .into_iter()
        .map(|mut reader| tokio::spawn(async move { reader.next().await }))
        .collect();
    tokio::time::sleep(POLL_EVERY * 5 / 2).await;
    let polls = command_counts(&server.url(), &counted).await[0] - before[0];
    assert!(
        (1..=4).contains(&polls),
        "{polls} looks at the stream in 2.5 poll periods by 20 readers"
    );
    let mut plain = ::redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let _: String = ::redis::cmd("XADD")
        .arg(keys::events(prompt_id))
        .arg("2-0")
        .arg("k")
        .arg(r#"{"type":"block_stop","index":0}"#)
        .query_async(&mut plain)
        .await
        .unwrap();
    for reader in waiting {
        let next = tokio::time::timeout(POLL_EVERY * 3, reader).await;
        let next = next.expect("found by a poll").unwrap();
        assert_eq!(next.unwrap().unwrap().seq, 2);
    }
}

/// The cancel connection drops: every listener is told signals may have been missed,
/// and signals are heard again once it is back.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancel_listeners_hear_of_a_lost_connection() {
    use crate::event_log::CancelHeard;
    let log = connect().await;
    let prompt_id = Uuid::now_v7();
    let mut listener = log.listen_cancel(prompt_id);
    let first = tokio::time::timeout(Duration::from_secs(5), listener.heard()).await;
    assert_eq!(
        first.expect("told once subscribed"),
        CancelHeard::MaybeMissed,
        "a listener created before the subscription was confirmed"
    );
    log.drop_cancel_connection().await;
    let lapsed = tokio::time::timeout(Duration::from_secs(5), listener.heard()).await;
    assert_eq!(
        lapsed.expect("told after the reconnect"),
        CancelHeard::MaybeMissed
    );
    log.signal_cancel(prompt_id).await.unwrap();
    let heard = tokio::time::timeout(Duration::from_secs(2), listener.heard()).await;
    assert_eq!(heard.expect("the signal"), CancelHeard::Cancelled);
}

/// A log on `server`, once it answers.
async fn log_on(server: &OwnServer) -> RedisEventLog {
    for _ in 0..100 {
        if let Ok(log) = RedisEventLog::connect(&server.url()).await
            && log.ready().await.is_ok()
        {
            return log;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the private redis-server did not start");
}

#[tokio::test]
async fn unreachable_redis_is_unavailable() {
    // Connecting is lazy (Parley starts while Redis is down); using it is what fails.
    let log = RedisEventLog::connect(&format!("redis://127.0.0.1:{}/", free_port()))
        .await
        .expect("a lazy connect succeeds");
    let ready = log.ready().await;
    assert!(
        matches!(ready, Err(EventLogError::Unavailable(_))),
        "{ready:?}"
    );
    let appended = log
        .append(
            uuid::Uuid::now_v7(),
            parley_protocol::events::EventKind::Cancelled,
        )
        .await;
    assert!(
        matches!(appended, Err(EventLogError::Unavailable(_))),
        "{appended:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn redis_going_down_is_unavailable_until_it_is_back() {
    let mut server = OwnServer::start();
    let mut log = None;
    for _ in 0..100 {
        if let Ok(connected) = RedisEventLog::connect(&server.url()).await {
            log = Some(connected);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let log = log.expect("the private redis-server starts");
    let prompt_id = Uuid::now_v7();
    log.append(prompt_id, conformance::delta(0)).await.unwrap();
    let mut reader = log.subscribe(prompt_id, 0);
    assert_eq!(reader.next().await.unwrap().unwrap().seq, 1);

    server.stop().await;
    let mut failure = None;
    for _ in 0..100 {
        match log.append(prompt_id, conformance::delta(1)).await {
            Ok(_) => tokio::time::sleep(Duration::from_millis(50)).await,
            Err(error) => {
                failure = Some(error);
                break;
            }
        }
    }
    assert!(
        matches!(failure, Some(EventLogError::Unavailable(_))),
        "{failure:?}"
    );
    let waiting = tokio::time::timeout(POLL_EVERY * 4, reader.next()).await;
    let waiting = waiting.expect("the reader notices within a poll or two");
    assert!(
        matches!(waiting, Some(Err(EventLogError::Unavailable(_)))),
        "{waiting:?}"
    );
    assert!(reader.next().await.is_none(), "an error ends the stream");

    server.restart();
    let mut appended = None;
    for _ in 0..200 {
        if let Ok(event) = log.append(prompt_id, conformance::delta(2)).await {
            appended = Some(event);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // The restarted server is empty: the log starts over.
    assert_eq!(appended.expect("appends work again").seq, 1);
    let mut reader = log.subscribe(prompt_id, 1);
    let writer = async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        log.append(prompt_id, conformance::complete())
            .await
            .unwrap();
    };
    let (last, ()) = tokio::join!(tokio::time::timeout(POLL_EVERY * 2, reader.next()), writer);
    assert_eq!(last.unwrap().unwrap().unwrap().seq, 2);
}

/// A writer rides out a Redis restart shorter than [`writer::APPEND_PATIENCE`]: the
/// append made while Redis is down waits, and lands once it is back — in a log started
/// over above the writer's floor, since this Redis keeps nothing.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_appends_through_a_short_redis_restart() {
    let mut server = OwnServer::start();
    let log = log_on(&server).await;
    let prompt_id = Uuid::now_v7();
    let mut writer = log.writer(prompt_id, Some(0), 0);
    assert_eq!(writer.append(conformance::delta(0)).await.unwrap().seq, 1);

    server.stop().await;
    let down = std::time::Instant::now();
    let (appended, ()) = tokio::join!(writer.append(conformance::delta(1)), async {
        tokio::time::sleep(Duration::from_millis(1_000)).await;
        server.restart();
    });
    let appended = appended.expect("the append waited for Redis");
    assert!(down.elapsed() >= Duration::from_millis(1_000));
    assert_eq!(appended.seq, 2, "above everything the writer appended");
    let mut reader = log.subscribe(prompt_id, 0);
    let first = reader.next().await.unwrap().unwrap();
    assert_eq!((first.seq, first.kind), (2, conformance::delta(1)));
}

/// An outage longer than the patience fails the append as unavailable.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_gives_up_after_its_patience() {
    let mut server = OwnServer::start();
    let log = log_on(&server).await;
    let prompt_id = Uuid::now_v7();
    let mut writer = log.writer(prompt_id, Some(0), 0);
    writer.append(conformance::delta(0)).await.unwrap();
    server.stop().await;
    let started = std::time::Instant::now();
    let failed = writer.append(conformance::delta(1)).await;
    assert!(
        matches!(failed, Err(EventLogError::Unavailable(_))),
        "{failed:?}"
    );
    let waited = started.elapsed();
    assert!(
        waited >= writer::APPEND_PATIENCE - Duration::from_secs(1)
            && waited < writer::APPEND_PATIENCE + Duration::from_secs(2),
        "{waited:?}"
    );
}

/// What a writer that did not learn an append's outcome reads back: the entry with its
/// tag among the newest, wherever other appenders put theirs after it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_append_is_found_by_its_tag() {
    let log = connect().await;
    let prompt_id = Uuid::now_v7();
    log.append(prompt_id, conformance::delta(0)).await.unwrap();
    let mut writer = log.writer(prompt_id, None, 0);
    let mine = writer.append(conformance::delta(1)).await.unwrap().seq;
    for i in 2..10 {
        log.append(prompt_id, conformance::delta(i)).await.unwrap();
    }
    let entries = entries_of(prompt_id).await;
    let tag = &entries[mine as usize - 1].1[1].1;
    assert_eq!(log.inner.tagged(prompt_id, tag).await.unwrap(), Some(mine));
    assert_eq!(
        log.inner
            .tagged(prompt_id, "0000000000000000")
            .await
            .unwrap(),
        None
    );
    let tags: std::collections::HashSet<&String> =
        entries.iter().map(|(_, fields)| &fields[1].1).collect();
    assert_eq!(
        tags.len(),
        entries.len(),
        "every append has a tag of its own"
    );
}
