//! The conformance suite every job-queue backend must pass (DESIGN §1, §10).
//!
//! Each check is a plain `async fn` over a [`Harness`] — a way to open the backend, again
//! and again, on the same store — so the same bodies run against SQLite and Redis;
//! [`conformance_suite!`] turns them into one `#[tokio::test]` each. A harness opens a
//! fresh queue (its own file, or its own Redis namespace), so checks run in parallel
//! against one Redis. Every wait is bounded: a lost job fails the check instead of
//! hanging the suite. Compiled for this crate's tests and, with the `conformance`
//! feature, for other crates'.

use std::time::Duration;

use parley_protocol::jobs::PromptJob;
use uuid::Uuid;

use super::{ConsumerConfig, JobFailure, JobQueue, QueueBackend};

mod kit;
pub use self::kit::{Consumers, Harness, Recorder, test_config, wait_until};

/// Generates one `#[tokio::test]` per check for `$harness`, an `async fn() -> Harness`
/// (for this crate's tests; other crates call the checks themselves).
#[cfg(test)]
macro_rules! conformance_suite {
    ($harness:path) => {
        $crate::queue::conformance::conformance_suite!(@each $harness;
            every_job_is_handled_exactly_once,
            an_enqueued_job_wakes_idle_consumers,
            retries_are_bounded,
            permanent_failures_are_not_retried,
            concurrency_limit_is_respected,
            jobs_wait_for_a_consumer,
            graceful_shutdown_lets_running_jobs_finish,
            a_job_running_past_the_drain_deadline_is_handed_back,
            a_job_outliving_the_job_timeout_is_given_up,
            orphaned_job_runs_again,
        );
    };
    (@each $harness:path; $($check:ident),* $(,)?) => {
        $(
            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn $check() {
                let harness = $harness().await;
                $crate::queue::conformance::$check(&harness).await;
            }
        )*
    };
}
#[cfg(test)]
pub(crate) use conformance_suite;

async fn enqueue_new(queue: &QueueBackend) -> Uuid {
    let id = Uuid::now_v7();
    queue.enqueue(PromptJob::turn(id)).await.expect("enqueue");
    id
}

async fn depth(queue: &QueueBackend) -> u64 {
    queue.depth().await.expect("depth")
}

pub async fn every_job_is_handled_exactly_once(h: &Harness) {
    let queue = h.open().await;
    queue.ready().await.expect("a live backend is ready");
    assert_eq!(depth(&queue).await, 0);
    let recorder = Recorder::succeeding();
    let mut ids = Vec::new();
    for _ in 0..25 {
        ids.push(enqueue_new(&queue).await);
    }
    let consumers = Consumers::start(&queue, test_config(), recorder.clone());
    for _ in 0..25 {
        ids.push(enqueue_new(&queue).await);
    }
    wait_until("all 50 jobs ran", Duration::from_secs(20), || {
        recorder.distinct() == 50
    })
    .await;
    tokio::time::sleep(Duration::from_millis(500)).await; // room for a duplicate to show
    consumers.stop().await;
    for id in &ids {
        assert_eq!(recorder.calls(*id), 1, "runs of job {id}");
    }
    assert_eq!(recorder.total(), 50);
    assert_eq!(depth(&queue).await, 0);
}

pub async fn an_enqueued_job_wakes_idle_consumers(h: &Harness) {
    let queue = h.open().await;
    let recorder = Recorder::succeeding();
    // Neither the poll nor the heartbeat (which also wakes a worker) comes in time.
    let config = ConsumerConfig {
        poll_interval: Duration::from_secs(60),
        heartbeat: Duration::from_secs(60),
        ..test_config()
    };
    let consumers = Consumers::start(&queue, config, recorder.clone());
    tokio::time::sleep(Duration::from_millis(500)).await; // registered, fetched nothing, parked
    for _ in 0..3 {
        let id = enqueue_new(&queue).await;
        wait_until("the job ran without a poll", Duration::from_secs(5), || {
            recorder.calls(id) == 1
        })
        .await;
        tokio::time::sleep(Duration::from_millis(200)).await; // parked again
    }
    consumers.stop().await;
}

pub async fn retries_are_bounded(h: &Harness) {
    let queue = h.open().await;
    let (flaky, doomed) = (Uuid::now_v7(), Uuid::now_v7());
    let recorder = Recorder::new(move |id, nth| async move {
        if id == doomed || (id == flaky && nth < 3) {
            Err(JobFailure::Retry(format!("run {nth} failed")))
        } else {
            Ok(())
        }
    });
    let consumers = Consumers::start(&queue, test_config(), recorder.clone());
    for id in [flaky, doomed] {
        queue.enqueue(PromptJob::turn(id)).await.expect("enqueue");
    }
    wait_until(
        "both jobs used their 3 attempts",
        Duration::from_secs(10),
        || recorder.calls(flaky) == 3 && recorder.calls(doomed) == 3,
    )
    .await;
    // Longer than a poll and than Redis's own retry delay: a re-delivery would show.
    tokio::time::sleep(Duration::from_millis(2500)).await;
    consumers.stop().await;
    assert_eq!(recorder.calls(flaky), 3, "succeeded on its third run");
    assert_eq!(
        recorder.calls(doomed),
        3,
        "given up after max_attempts runs"
    );
    assert_eq!(depth(&queue).await, 0);
}

pub async fn permanent_failures_are_not_retried(h: &Harness) {
    let queue = h.open().await;
    let recorder =
        Recorder::new(|_, _| async { Err(JobFailure::Permanent("no such prompt".into())) });
    let consumers = Consumers::start(&queue, test_config(), recorder.clone());
    let id = enqueue_new(&queue).await;
    wait_until("the job ran", Duration::from_secs(10), || {
        recorder.calls(id) == 1
    })
    .await;
    tokio::time::sleep(Duration::from_millis(2500)).await;
    consumers.stop().await;
    assert_eq!(recorder.calls(id), 1);
    assert_eq!(depth(&queue).await, 0);
}

pub async fn concurrency_limit_is_respected(h: &Harness) {
    let queue = h.open().await;
    let recorder = Recorder::new(|_, _| async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        Ok(())
    });
    for _ in 0..12 {
        enqueue_new(&queue).await;
    }
    let config = ConsumerConfig {
        concurrency: 3,
        ..test_config()
    };
    let consumers = Consumers::start(&queue, config, recorder.clone());
    wait_until("all 12 jobs ran", Duration::from_secs(20), || {
        recorder.finished() == 12
    })
    .await;
    consumers.stop().await;
    let peak = recorder.max_in_flight();
    assert!(peak <= 3, "{peak} jobs ran at once with concurrency 3");
    assert!(
        peak >= 2,
        "jobs ran one at a time (peak {peak}) with concurrency 3"
    );
}

pub async fn jobs_wait_for_a_consumer(h: &Harness) {
    let mut ids = Vec::new();
    {
        let queue = h.open().await;
        for _ in 0..5 {
            ids.push(enqueue_new(&queue).await);
        }
        assert_eq!(depth(&queue).await, 5);
    } // the producer is gone: what it enqueued must be stored, not held by it
    let queue = h.open().await;
    assert_eq!(
        depth(&queue).await,
        5,
        "jobs are still queued after reopening"
    );
    let recorder = Recorder::succeeding();
    let consumers = Consumers::start(&queue, test_config(), recorder.clone());
    wait_until("the stored jobs ran", Duration::from_secs(10), || {
        recorder.distinct() == 5
    })
    .await;
    consumers.stop().await;
    assert!(ids.iter().all(|id| recorder.calls(*id) == 1));
}

pub async fn graceful_shutdown_lets_running_jobs_finish(h: &Harness) {
    let queue = h.open().await;
    let recorder = Recorder::new(|_, _| async {
        tokio::time::sleep(Duration::from_millis(400)).await;
        Ok(())
    });
    let consumers = Consumers::start(&queue, test_config(), recorder.clone());
    let running = enqueue_new(&queue).await;
    wait_until("the job started", Duration::from_secs(10), || {
        recorder.calls(running) == 1
    })
    .await;
    consumers.stop().await;
    assert_eq!(
        recorder.finished(),
        1,
        "the running job finished before the pool returned"
    );

    let later = enqueue_new(&queue).await;
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(recorder.calls(later), 0, "a stopped pool takes no job");
    assert_eq!(depth(&queue).await, 1);
    assert_eq!(
        recorder.calls(running),
        1,
        "the finished job was acknowledged"
    );
}

pub async fn a_job_running_past_the_drain_deadline_is_handed_back(h: &Harness) {
    let queue = h.open().await;
    // A worker is found dead only after 100 missed heartbeats: only the hand-back can
    // bring the job back within the test's time.
    let config = ConsumerConfig {
        shutdown_timeout: Duration::from_millis(300),
        missed_heartbeats: 100,
        ..test_config()
    };
    let hangs = Recorder::new(|_, _| futures::future::pending());
    let draining = Consumers::start(&queue, config.clone(), hangs.clone());
    let id = enqueue_new(&queue).await;
    wait_until("the job started", Duration::from_secs(10), || {
        hangs.calls(id) == 1
    })
    .await;
    let stopping = std::time::Instant::now();
    draining.stop().await;
    assert!(
        stopping.elapsed() < Duration::from_secs(3),
        "the pool returned soon after the drain deadline: {:?}",
        stopping.elapsed()
    );
    assert_eq!(hangs.handed_back(), [id], "the handler was told to let go");
    assert_eq!(hangs.finished(), 0);
    assert_eq!(depth(&queue).await, 1, "the job is back in the queue");

    let recorder = Recorder::succeeding();
    let consumers = Consumers::start(&queue, config, recorder.clone());
    wait_until(
        "the handed-back job ran at once elsewhere",
        Duration::from_secs(5),
        || recorder.calls(id) == 1,
    )
    .await;
    consumers.stop().await;
}

/// The job timeout (tower's timeout layer in the worker's stack) stops a run that hangs:
/// the handler is told to let go, the job is given up (acknowledged, never delivered
/// again) and its slot serves the next job.
pub async fn a_job_outliving_the_job_timeout_is_given_up(h: &Harness) {
    let queue = h.open().await;
    let config = ConsumerConfig {
        concurrency: 1,
        job_timeout: Duration::from_millis(300),
        ..test_config()
    };
    let stuck = Uuid::now_v7();
    let recorder = Recorder::new(move |id, _| async move {
        if id == stuck {
            futures::future::pending::<()>().await;
        }
        Ok(())
    });
    let consumers = Consumers::start(&queue, config, recorder.clone());
    queue
        .enqueue(PromptJob::turn(stuck))
        .await
        .expect("enqueue");
    let next = enqueue_new(&queue).await;
    // In either order: on a partitioned queue the second job may be taken first.
    wait_until(
        "the stuck job was stopped and the other ran in the one slot",
        Duration::from_secs(10),
        || recorder.calls(next) == 1 && !recorder.handed_back().is_empty(),
    )
    .await;
    assert_eq!(
        recorder.handed_back(),
        [stuck],
        "the handler was told to let go"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(recorder.calls(stuck), 1, "given up, not delivered again");
    assert_eq!(depth(&queue).await, 0);
    consumers.stop().await;
    assert_eq!(recorder.calls(stuck), 1);
}

pub async fn orphaned_job_runs_again(h: &Harness) {
    let queue = h.open().await;
    let config = ConsumerConfig {
        missed_heartbeats: 2,
        ..test_config()
    };
    let hangs = Recorder::new(|_, _| futures::future::pending());
    let dying = Consumers::start(&queue, config.clone(), hangs.clone());
    let id = enqueue_new(&queue).await;
    wait_until(
        "the first worker took the job",
        Duration::from_secs(10),
        || hangs.calls(id) == 1,
    )
    .await;
    dying.kill().await;

    let recorder = Recorder::succeeding();
    let consumers = Consumers::start(&queue, config, recorder.clone());
    wait_until(
        "the orphaned job ran again",
        Duration::from_secs(15),
        || recorder.calls(id) == 1,
    )
    .await;
    consumers.stop().await;
    assert_eq!(hangs.finished(), 0);
}
