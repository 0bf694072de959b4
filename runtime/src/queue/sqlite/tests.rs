use super::super::conformance::{self, Harness};
use super::*;
use crate::queue::ConsumerConfig;

async fn harness() -> Harness {
    let dir = tempfile::tempdir().expect("a temp dir");
    let path = dir.path().join("data").join("queue.db");
    Harness::new(move || {
        let path = path.clone();
        async move {
            let q = SqliteQueue::open(&path).await.expect("open the queue file");
            super::super::QueueBackend::Sqlite(q)
        }
    })
    .keep(dir)
}

conformance::conformance_suite!(harness);

async fn rows(queue: &SqliteQueue, sql: &'static str) -> i64 {
    sqlx::query_scalar(sql)
        .fetch_one(&queue.pool)
        .await
        .expect("count rows")
}

/// No commit checkpoints the queue's WAL; the checkpointer does, so the WAL starts
/// over after a pause instead of growing until a commit takes it past 1,000 pages.
#[tokio::test]
async fn the_wal_is_checkpointed_in_the_background() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let queue = SqliteQueue::open(dir.path().join("queue.db"))
        .await
        .expect("open the queue file");
    // Hundreds of commits, fewer than 1,000 pages: SQLite itself would not have
    // checkpointed them yet.
    for _ in 0..300 {
        queue
            .enqueue(PromptJob::turn(uuid::Uuid::now_v7()))
            .await
            .expect("enqueue");
    }
    let wal = dir.path().join("queue.db-wal");
    let written = std::fs::metadata(&wal).expect("the WAL file").len();
    assert!(
        written >= 300 * 4096,
        "each enqueue is a commit in the WAL: {written} bytes"
    );
    // The checkpointer copies them all; the next commit starts the WAL over (the
    // file is reused, so its size stays: its frames in use tell).
    tokio::time::sleep(CHECKPOINT_EVERY * 3).await;
    queue
        .enqueue(PromptJob::turn(uuid::Uuid::now_v7()))
        .await
        .expect("enqueue");
    let (_, after, _): (i64, i64, i64) = sqlx::query_as("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(&queue.pool)
        .await
        .expect("the WAL's frames");
    assert!(after < 10, "the WAL started over: {after} frames");
}

/// The file holds only what is still to do: a finished or given-up job leaves no row,
/// and a worker that left no registration.
#[tokio::test]
async fn settled_jobs_and_stopped_workers_leave_nothing_behind() {
    use super::super::conformance::{Consumers, Recorder, test_config, wait_until};
    use super::super::{JobFailure, QueueBackend};
    let dir = tempfile::tempdir().expect("a temp dir");
    let queue = SqliteQueue::open(dir.path().join("queue.db"))
        .await
        .expect("open");
    let doomed = uuid::Uuid::now_v7();
    let recorder = Recorder::new(move |id, _| async move {
        if id == doomed {
            Err(JobFailure::Permanent("gone".into()))
        } else {
            Ok(())
        }
    });
    let backend = QueueBackend::Sqlite(queue.clone());
    let consumers = Consumers::start(&backend, test_config(), recorder.clone());
    queue
        .enqueue(PromptJob::turn(doomed))
        .await
        .expect("enqueue");
    for _ in 0..9 {
        let job = PromptJob::turn(uuid::Uuid::now_v7());
        queue.enqueue(job).await.expect("enqueue");
    }
    wait_until("every job ran", Duration::from_secs(10), || {
        recorder.finished() == 10 && recorder.calls(doomed) == 1
    })
    .await;
    assert_eq!(
        rows(&queue, "SELECT COUNT(*) FROM parley_job_workers").await,
        1
    );
    consumers.stop().await;
    assert_eq!(rows(&queue, "SELECT COUNT(*) FROM parley_jobs").await, 0);
    assert_eq!(
        rows(&queue, "SELECT COUNT(*) FROM parley_job_workers").await,
        0
    );
}

/// One fetch takes as many waiting jobs as the pool has room for, oldest first, and
/// hands them out one by one; once a fetch has emptied the queue, the next waits for a
/// wake-up, and an enqueue since that fetch (in-process) or the poll (another process's
/// insert) still finds its job.
#[tokio::test]
async fn a_fetch_takes_the_waiting_jobs_there_is_room_for_and_no_job_is_missed_after_one() {
    use super::super::consumer::{ConsumerPool, Next};
    let dir = tempfile::tempdir().expect("a temp dir");
    let queue = SqliteQueue::open(dir.path().join("queue.db"))
        .await
        .expect("open");
    let ids: Vec<uuid::Uuid> = (0..5).map(|_| uuid::Uuid::now_v7()).collect();
    for id in &ids {
        queue.enqueue(PromptJob::turn(*id)).await.expect("enqueue");
    }
    let pool = Pool {
        queue: queue.clone(),
        name: "w".into(),
        held: Mutex::default(),
        fetched: Mutex::default(),
        drained: AtomicBool::new(false),
        stray: AtomicBool::new(false),
    };
    let mut wake = queue.wake.subscribe();
    let (_stop, stop) = watch::channel(false);
    let taken_by_w = "SELECT COUNT(*) FROM parley_jobs WHERE worker = 'w'";
    // The next job with room for `room` and a poll every `poll` ms.
    let mut next_polling = async |room, poll| {
        let config = ConsumerConfig {
            poll_interval: Duration::from_millis(poll),
            ..ConsumerConfig::default()
        };
        match pool.next(&mut wake, &config, &stop, room).await {
            Next::Job { payload, .. } => {
                serde_json::from_str::<PromptJob>(&payload)
                    .expect("a job")
                    .prompt_id
            }
            Next::Again => uuid::Uuid::nil(),
            Next::Stopped => panic!("not stopped"),
        }
    };
    let mut next = async |room| next_polling(room, 60_000).await;
    assert_eq!(next(3).await, ids[0]);
    assert_eq!(rows(&queue, taken_by_w).await, 3, "one fetch took three");
    assert_eq!(next(1).await, ids[1]);
    assert_eq!(next(1).await, ids[2]);
    assert_eq!(
        rows(&queue, taken_by_w).await,
        3,
        "handed out without a fetch"
    );
    assert_eq!(next(8).await, ids[3], "the last two, fewer than the room");
    assert_eq!(next(8).await, ids[4]);
    assert_eq!(pool.lock().len(), 5, "all five held");
    // The queue was emptied: an enqueue since then wakes the wait at once.
    let late = uuid::Uuid::now_v7();
    queue.enqueue(PromptJob::turn(late)).await.expect("enqueue");
    let found = tokio::time::timeout(Duration::from_secs(5), next(8)).await;
    assert_eq!(found.expect("found without the (60 s) poll"), late);
    // Another process's job (no wake-up) is found by the poll.
    let other = uuid::Uuid::now_v7();
    let payload = serde_json::to_string(&PromptJob::turn(other)).expect("encode");
    sqlx::query("INSERT INTO parley_jobs (queue, payload) VALUES (?1, ?2)")
        .bind(&queue.queue)
        .bind(payload)
        .execute(&queue.pool)
        .await
        .expect("insert");
    let mut found = uuid::Uuid::nil();
    for _ in 0..3 {
        found = next_polling(8, 100).await;
        if found == other {
            break;
        }
    }
    assert_eq!(found, other, "found by the poll");
    assert_eq!(rows(&queue, taken_by_w).await, 7);
}

#[tokio::test]
#[allow(
    clippy::disallowed_methods,
    reason = "a test reads its servers (PARLEY_TEST_*) and files from the environment"
)]
async fn open_fails_where_no_file_can_be() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let blocker = dir.path().join("not-a-dir");
    std::fs::write(&blocker, b"").expect("write a file");
    let err = SqliteQueue::open(blocker.join("queue.db"))
        .await
        .unwrap_err();
    assert!(matches!(err, QueueError::Unavailable(_)), "{err:?}");
}
