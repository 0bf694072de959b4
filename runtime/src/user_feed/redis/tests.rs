//! The conformance suite against a live Redis, plus what only the Redis feed promises:
//! its key layout and expiry, and one command per append.

use std::sync::Arc;

use super::*;
use crate::test_redis::{OwnServer, command_counts};
use crate::user_feed::conformance::{self, Backend, RETENTION, conformance_suite};

use crate::test_redis::shared_url as redis_url;

async fn backend() -> Backend {
    backend_on(&redis_url())
}

fn backend_on(url: &str) -> Backend {
    let feed = RedisUserFeed::connect(url, RETENTION).unwrap();
    let probe = feed.clone();
    Backend {
        feed: Arc::new(feed),
        held_for: Box::new(move |user_id| probe.followers(user_id)),
    }
}

conformance_suite!(backend);

/// The same guarantees on a Redis Cluster (wakes on sharded channels).
mod on_cluster {
    use super::*;

    async fn backend() -> Backend {
        backend_on(&crate::test_redis::cluster_url())
    }

    conformance_suite!(backend);
}

async fn raw(url: &str) -> ::redis::aio::MultiplexedConnection {
    ::redis::Client::open(url)
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap()
}

#[tokio::test]
async fn a_feed_is_a_tagged_stream_that_expires_after_its_age() {
    let feed = RedisUserFeed::connect(&redis_url(), RETENTION).unwrap();
    let user = Uuid::now_v7();
    let event = feed.append(user, conformance::created(1)).await.unwrap();
    let key = keys::user_feed(user);
    assert_eq!(key, format!("parley:{{user:{user}}}:feed"));
    let mut conn = raw(&redis_url()).await;
    let ttl: i64 = ::redis::cmd("PTTL")
        .arg(&key)
        .query_async(&mut conn)
        .await
        .unwrap();
    assert!(ttl > 3_500_000 && ttl <= 3_600_000, "{ttl}");
    let entries: Vec<(String, Vec<String>)> = ::redis::cmd("XRANGE")
        .arg(&key)
        .arg("-")
        .arg("+")
        .query_async(&mut conn)
        .await
        .unwrap();
    assert_eq!(entries.len(), 2, "the marker, then the event: {entries:?}");
    assert_eq!(entries[0].0, format!("{}-0", event.seq - 1));
    assert_eq!(entries[0].1[0], "start");
    assert_eq!(entries[1].0, format!("{}-0", event.seq));
    // A feed that expired starts again: a reader from before is told.
    ::redis::cmd("DEL")
        .arg(&key)
        .exec_async(&mut conn)
        .await
        .unwrap();
    let again = feed.append(user, conformance::created(2)).await.unwrap();
    assert!(again.seq > event.seq);
    assert!(feed.read(user, event.seq, 10).await.unwrap().gap);
}

/// Once a feed exists, an event is one `XADD`: no read, no expiry, no script.
#[tokio::test]
async fn an_append_to_a_live_feed_is_one_xadd() {
    let server = OwnServer::start();
    let url = server.url();
    let mut ready = false;
    for _ in 0..100 {
        if ::redis::Client::open(url.as_str())
            .unwrap()
            .get_multiplexed_async_connection()
            .await
            .is_ok()
        {
            ready = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    assert!(ready, "the private redis-server started");
    let feed = RedisUserFeed::connect(&url, RETENTION).unwrap();
    let user = Uuid::now_v7();
    feed.append(user, conformance::created(1)).await.unwrap();
    let counted = ["xadd", "evalsha", "eval", "pexpire", "xrevrange", "publish"];
    let before = command_counts(&url, &counted).await;
    for n in 2..12 {
        feed.append(user, conformance::created(n)).await.unwrap();
    }
    let after = command_counts(&url, &counted).await;
    let spent: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    assert_eq!(spent, [10, 0, 0, 0, 0, 0], "{counted:?}");
}
