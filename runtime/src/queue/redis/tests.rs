//! The conformance suite against a live Redis, plus what only this backend has: its
//! cost per job, its prompt shutdown while idle, and its recovery of a job whose fetch
//! reply was lost.

use std::time::{Duration, Instant};

use super::super::conformance::{self, Consumers, Harness, Recorder, test_config, wait_until};
use super::super::{ConsumerConfig, JobQueue, QueueBackend};
use super::*;
use crate::test_redis::{OwnServer, command_counts};

use crate::test_redis::shared_url as redis_url;

/// A fresh queue of `partitions` on the Redis at `url`.
fn harness_on(url: String, partitions: u16) -> Harness {
    let queue = format!("parley-test-{}", uuid::Uuid::now_v7().simple());
    Harness::new(move || {
        let (url, queue) = (url.clone(), queue.clone());
        async move {
            let q = RedisQueue::connect(&url)
                .expect("connect")
                .with_queue(queue)
                .with_partitions(partitions);
            QueueBackend::Redis(q)
        }
    })
}

async fn harness() -> Harness {
    harness_on(redis_url(), 1)
}

conformance::conformance_suite!(harness);

/// The same guarantees from a queue of three partitions, on one server.
mod partitioned {
    use super::*;

    async fn harness() -> Harness {
        harness_on(redis_url(), 3)
    }

    conformance::conformance_suite!(harness);
}

/// And on a Redis Cluster, its partitions on several primaries.
mod on_cluster {
    use super::*;

    async fn harness() -> Harness {
        harness_on(crate::test_redis::cluster_url(), 3)
    }

    conformance::conformance_suite!(harness);
}

#[tokio::test]
async fn ready_fails_on_a_dead_backend() {
    let queue = RedisQueue::connect("redis://127.0.0.1:1/").expect("a valid URL");
    match queue.ready().await {
        Err(QueueError::Unavailable(_)) => {}
        other => panic!("expected Unavailable, got {other:?}"),
    }
    assert!(matches!(
        queue.depth().await,
        Err(QueueError::Unavailable(_))
    ));
    let job = PromptJob::turn(uuid::Uuid::now_v7());
    assert!(matches!(
        queue.enqueue(job).await,
        Err(QueueError::Unavailable(_))
    ));
}

/// A queue on a private server, once it answers.
async fn queue_on(server: &OwnServer) -> RedisQueue {
    let queue = RedisQueue::connect(&server.url()).expect("connect");
    for _ in 0..100 {
        if queue.ready().await.is_ok() {
            return queue;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the private redis-server did not start");
}

/// Enqueued, taken, acknowledged: `LPUSH`, `BLMOVE`, `LREM` — whatever else a pool does
/// (heartbeats, a wait cut short by the shutdown) is not per job.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_costs_three_commands() {
    let server = OwnServer::start();
    let queue = QueueBackend::Redis(queue_on(&server).await);
    let recorder = Recorder::succeeding();
    let config = ConsumerConfig {
        heartbeat: Duration::from_secs(60),
        ..test_config()
    };
    let consumers = Consumers::start(&queue, config, recorder.clone());
    tokio::time::sleep(Duration::from_millis(300)).await; // waiting in BLMOVE
    let counted = ["lpush", "blmove", "lrem", "rpush", "publish"];
    let before = command_counts(&server.url(), &counted).await;
    for _ in 0..5 {
        queue
            .enqueue(PromptJob::turn(uuid::Uuid::now_v7()))
            .await
            .expect("enqueue");
    }
    wait_until("the jobs ran", Duration::from_secs(10), || {
        recorder.finished() == 5
    })
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await; // acknowledged
    let after = command_counts(&server.url(), &counted).await;
    consumers.stop().await;
    let spent: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // The BLMOVE waiting when the first job came is counted when it returns.
    assert!(
        spent == [5, 5, 5, 0, 0] || spent == [5, 6, 5, 0, 0],
        "{counted:?}: {spent:?}"
    );
    assert_eq!(queue.depth().await.unwrap(), 0);
}

/// Jobs spread over the partitions (their prompt ids pick), a job still costs three
/// commands, and a worker with one slot, so fewer slots than partitions, takes the jobs
/// of every partition.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn partitions_fill_evenly_and_one_slot_serves_them_all() {
    let server = OwnServer::start();
    let redis = queue_on(&server).await.with_partitions(3);
    let queue = QueueBackend::Redis(redis.clone());
    for _ in 0..60 {
        queue
            .enqueue(PromptJob::turn(uuid::Uuid::now_v7()))
            .await
            .expect("enqueue");
    }
    let mut raw = ::redis::Client::open(server.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let mut lengths = Vec::new();
    for key in redis.pending_keys() {
        let length: u64 = ::redis::cmd("LLEN")
            .arg(&key)
            .query_async(&mut raw)
            .await
            .unwrap();
        lengths.push(length);
    }
    assert_eq!(lengths.iter().sum::<u64>(), 60);
    assert!(
        lengths.iter().all(|n| *n >= 5),
        "every partition gets jobs: {lengths:?}"
    );
    assert_eq!(queue.depth().await.unwrap(), 60);
    assert_eq!(
        redis.pending_keys()[0],
        format!("{{{}}}:pending", DEFAULT_QUEUE),
        "partition 0 keeps the keys of a one-partition queue"
    );

    let counted = ["lpush", "blmove", "lrem"];
    let before = command_counts(&server.url(), &counted).await;
    let recorder = Recorder::succeeding();
    let config = ConsumerConfig {
        concurrency: 1,
        heartbeat: Duration::from_secs(60),
        ..test_config()
    };
    let started = Instant::now();
    let consumers = Consumers::start(&queue, config, recorder.clone());
    wait_until(
        "every partition's jobs ran",
        Duration::from_secs(30),
        || recorder.finished() == 60,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(200)).await; // acknowledged
    let took = started.elapsed();
    let after = command_counts(&server.url(), &counted).await;
    consumers.stop().await;
    assert_eq!(recorder.distinct(), 60);
    assert_eq!(recorder.max_in_flight(), 1);
    let spent: Vec<u64> = after.iter().zip(&before).map(|(a, b)| a - b).collect();
    // Each job: one BLMOVE that took it and one LREM. Beside them, the loop holding the
    // one slot waits a turn (250 ms) on an empty partition before handing the slot on:
    // at most one empty BLMOVE per turn, however slow the machine — no poll loop.
    assert_eq!((spent[0], spent[2]), (0, 60), "{counted:?}: {spent:?}");
    let turns = (took.as_millis() / 250) as u64 + 3;
    assert!(
        (60..=60 + turns).contains(&spent[1]),
        "{counted:?}: {spent:?} in {took:?}"
    );
}

/// An idle pool waits in `BLMOVE` for as long as a heartbeat; a shutdown does not wait
/// for it to return on its own.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_idle_pool_stops_at_once() {
    let queue = RedisQueue::connect(&redis_url())
        .expect("connect")
        .with_queue(format!("parley-test-{}", uuid::Uuid::now_v7().simple()));
    let queue = QueueBackend::Redis(queue);
    let config = ConsumerConfig {
        heartbeat: Duration::from_secs(60),
        ..test_config()
    };
    let consumers = Consumers::start(&queue, config, Recorder::succeeding());
    tokio::time::sleep(Duration::from_millis(500)).await;
    let stopping = Instant::now();
    consumers.stop().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(3),
        "the stop took {:?}",
        stopping.elapsed()
    );
    // Stopped for good: a job enqueued now waits.
    let id = uuid::Uuid::now_v7();
    queue.enqueue(PromptJob::turn(id)).await.expect("enqueue");
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(queue.depth().await.unwrap(), 1);
}

/// The fetch connection dies with a job in the worker's running list that no consumer
/// holds (a `BLMOVE` whose reply was lost): the worker hands it back and runs it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_job_whose_fetch_reply_was_lost_runs() {
    let server = OwnServer::start();
    let redis = queue_on(&server).await;
    let queue = QueueBackend::Redis(redis.clone());
    let recorder = Recorder::succeeding();
    let config = ConsumerConfig {
        heartbeat: Duration::from_secs(60),
        ..test_config()
    };
    let consumers = Consumers::start(&queue, config, recorder.clone());
    let mut conn = redis.conn.clone();
    let mut worker = None;
    for _ in 0..100 {
        let workers: Vec<String> = redis::cmd("ZRANGE")
            .arg(redis.partition(0).workers_key())
            .arg(0)
            .arg(-1)
            .query_async(&mut conn)
            .await
            .unwrap();
        if let Some(name) = workers.into_iter().next() {
            worker = Some(name);
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let worker = worker.expect("the worker registered");
    let lost = uuid::Uuid::now_v7();
    let payload = serde_json::to_string(&PromptJob::turn(lost)).unwrap();
    let _: i64 = redis::cmd("LPUSH")
        .arg(format!("{}{worker}", redis.partition(0).running_prefix()))
        .arg(payload)
        .query_async(&mut conn)
        .await
        .unwrap();
    // Cut the fetch connection (the one waiting in BLMOVE).
    let _: i64 = redis::cmd("CLIENT")
        .arg("KILL")
        .arg("TYPE")
        .arg("normal")
        .arg("SKIPME")
        .arg("yes")
        .query_async(&mut conn)
        .await
        .unwrap();
    wait_until("the lost job ran", Duration::from_secs(10), || {
        recorder.calls(lost) == 1
    })
    .await;
    consumers.stop().await;
    assert_eq!(queue.depth().await.unwrap(), 0);
}

/// The epoch stays while Redis keeps its data and changes once it lost it, for every
/// handle on the queue.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_epoch_changes_when_redis_loses_its_data() {
    let mut server = OwnServer::start();
    let a = queue_on(&server).await;
    let b = queue_on(&server).await;
    let first = a.epoch().await.unwrap().expect("Redis has an epoch");
    assert_eq!(a.epoch().await.unwrap().as_ref(), Some(&first));
    assert_eq!(b.epoch().await.unwrap().as_ref(), Some(&first), "shared");

    server.stop().await;
    server.restart();
    let after = epoch_once_back(&b).await;
    assert_ne!(after, first, "a restart without persistence is a new epoch");
    assert_eq!(epoch_once_back(&a).await, after, "shared again");
}

/// The queue's epoch once its (restarted) Redis answers again.
async fn epoch_once_back(queue: &RedisQueue) -> String {
    for _ in 0..100 {
        if let Ok(Some(epoch)) = queue.epoch().await {
            return epoch;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("Redis does not answer again");
}

/// A worker started while Redis is down keeps trying (each lane on its own, every
/// `restart_delay`) and serves once Redis answers; when Redis then restarts under it,
/// the fetch reconnects and the worker serves the jobs queued after.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_worker_waits_out_a_redis_that_is_down_and_one_that_restarts() {
    let mut server = OwnServer::start();
    let queue = queue_on(&server).await;
    server.stop().await;
    let backend = QueueBackend::Redis(queue.clone());
    let recorder = Recorder::succeeding();
    let consumers = Consumers::start(&backend, test_config(), recorder.clone());
    tokio::time::sleep(Duration::from_millis(500)).await;

    server.restart();
    let first = PromptJob::turn(uuid::Uuid::now_v7());
    queue_once_back(&queue, &first).await;
    wait_until("the first job ran", Duration::from_secs(10), || {
        recorder.calls(first.prompt_id) == 1
    })
    .await;

    server.stop().await;
    server.restart();
    let second = PromptJob::turn(uuid::Uuid::now_v7());
    queue_once_back(&queue, &second).await;
    wait_until(
        "the job queued after the restart ran",
        Duration::from_secs(15),
        || recorder.calls(second.prompt_id) == 1,
    )
    .await;
    consumers.stop().await;
}

/// Enqueues `job` once the (restarted) Redis takes it.
async fn queue_once_back(queue: &RedisQueue, job: &PromptJob) {
    for _ in 0..100 {
        if queue.enqueue(job.clone()).await.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("Redis does not take jobs again");
}
