//! The consumer side shared by both backends: the fetch loop of a pool of consumers
//! ([`fetch_loop`], over what a backend implements as [`ConsumerPool`]), the retry loop
//! around a [`JobHandler`] ([`JobContext::run`]), running one job and draining a pool's
//! jobs at shutdown, and the stop plumbing of [`run_consumers`](super::run_consumers).
//!
//! Retries are ours, not the backend's: [`run_job`] loops with an exponential backoff,
//! and a backend acts on the [`JobOutcome`]: a finished or given-up job is acknowledged
//! (never re-delivered); only a job interrupted by a shutdown while it waits for its next
//! attempt is handed back, so it runs again later.

use std::future::Future;
use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use parley_protocol::jobs::Generate;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinSet;
use tracing::{error, warn};

use super::{Backoff, ConsumerConfig, JobFailure, JobHandler, QueueError};

/// How a job ended in [`run_job`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum JobOutcome {
    /// The handler succeeded (after `attempts` runs).
    Done { attempts: u32 },
    /// Permanent failure, or retries exhausted: never run again.
    GaveUp { attempts: u32, reason: String },
    /// A shutdown came while the job waited for its next attempt; it stays queued.
    Interrupted { attempts: u32 },
}

/// Runs `job` until it succeeds, fails permanently, or has run `max_attempts` times,
/// sleeping `backoff.delay(n)` after the n-th retryable failure. A plain function, so
/// tests can drive a handler without a queue.
pub async fn run_job(
    handler: &dyn JobHandler,
    job: Generate,
    max_attempts: u32,
    backoff: Backoff,
) -> JobOutcome {
    run_job_until(handler, job, max_attempts, backoff, None).await
}

async fn run_job_until(
    handler: &dyn JobHandler,
    job: Generate,
    max_attempts: u32,
    backoff: Backoff,
    mut stop: Option<watch::Receiver<bool>>,
) -> JobOutcome {
    let prompt_id = job.prompt_id;
    let max_attempts = max_attempts.max(1);
    let mut attempt = 0;
    loop {
        attempt += 1;
        match handler.handle(job.clone()).await {
            Ok(()) => return JobOutcome::Done { attempts: attempt },
            Err(JobFailure::Permanent(reason)) => {
                error!(%prompt_id, attempt, %reason, "job failed permanently; not retrying");
                return JobOutcome::GaveUp {
                    attempts: attempt,
                    reason,
                };
            }
            Err(JobFailure::Retry(reason)) if attempt >= max_attempts => {
                error!(%prompt_id, attempt, %reason, "job failed; out of attempts, giving up");
                return JobOutcome::GaveUp {
                    attempts: attempt,
                    reason,
                };
            }
            Err(JobFailure::Retry(reason)) => {
                let delay = backoff.delay(attempt);
                warn!(%prompt_id, attempt, %reason, ?delay, "job failed; retrying");
                let stopped = match stop.as_mut() {
                    Some(stop) => sleep_unless_stopped(delay, stop).await,
                    None => {
                        tokio::time::sleep(delay).await;
                        false
                    }
                };
                if stopped {
                    return JobOutcome::Interrupted { attempts: attempt };
                }
            }
        }
    }
}

/// What every job of a pool runs with: the handler and its retry settings.
#[derive(Clone)]
pub(crate) struct JobContext {
    handler: Arc<dyn JobHandler>,
    max_attempts: u32,
    backoff: Backoff,
    stop: watch::Receiver<bool>,
    /// Turns true at the drain deadline: running jobs are interrupted and handed back.
    abandon: watch::Receiver<bool>,
    abandon_all: Arc<watch::Sender<bool>>,
}

impl JobContext {
    /// Runs `job` with the retries of [`run_job`]; a shutdown interrupts the wait between
    /// two attempts.
    pub(crate) async fn run(&self, job: Generate) -> JobOutcome {
        let stop = Some(self.stop.clone());
        run_job_until(&*self.handler, job, self.max_attempts, self.backoff, stop).await
    }

    pub(crate) fn new(
        handler: Arc<dyn JobHandler>,
        config: &ConsumerConfig,
        stop: watch::Receiver<bool>,
    ) -> Self {
        let (abandon_all, abandon) = watch::channel(false);
        Self {
            handler,
            max_attempts: config.max_attempts,
            backoff: config.backoff,
            stop,
            abandon,
            abandon_all: Arc::new(abandon_all),
        }
    }

    /// Runs `job` until it is over (`true`: acknowledge), or until the drain deadline
    /// interrupts it (`false`: hand it back, after the handler let go of it).
    async fn run_or_hand_back(&self, job: Generate) -> bool {
        tokio::select! {
            done = run_one(self, job.clone()) => done,
            () = stopped(&self.abandon) => {
                warn!(prompt_id = %job.prompt_id, "the drain deadline interrupted a job; handing it back");
                self.handler.hand_back(&job).await;
                false
            }
        }
    }
}

/// Sleeps for `delay`; returns early (with `true`) when `stop` turns true.
pub(crate) async fn sleep_unless_stopped(delay: Duration, stop: &watch::Receiver<bool>) -> bool {
    let mut stop = stop.clone();
    tokio::select! {
        _ = tokio::time::sleep(delay) => {}
        _ = stop.wait_for(|s| *s) => return true,
    }
    *stop.borrow()
}

/// Resolves once `stop` turns true.
pub(crate) async fn stopped(stop: &watch::Receiver<bool>) {
    let _ = stop.clone().wait_for(|stop| *stop).await;
}

/// Runs one job; whether it is over (acknowledge) rather than interrupted (hand back).
pub(crate) async fn run_one(context: &JobContext, job: Generate) -> bool {
    match AssertUnwindSafe(context.run(job)).catch_unwind().await {
        Ok(JobOutcome::Done { .. } | JobOutcome::GaveUp { .. }) => true,
        Ok(JobOutcome::Interrupted { .. }) => false,
        Err(_) => {
            error!("job handler panicked; not retrying");
            true
        }
    }
}

/// What one backend's pool of consumers gives the shared [`fetch_loop`]: how to take the
/// next job (with the backend's own way to wait for one and to recover from a failure),
/// and how to settle a job it ran.
pub(crate) trait ConsumerPool: Send + Sync + 'static {
    /// A taken job, as the backend settles it.
    type Taken: Send + Sync + 'static;

    /// What [`ConsumerPool::next`] fetches through (a connection of its own, a wake-up
    /// receiver).
    type Fetcher: Send;

    /// The worker's name, for logs.
    fn worker(&self) -> &str;

    /// A settle failed: the backend may show jobs as this worker's that no job task holds.
    fn stray(&self) -> bool;

    /// Hands back what [`ConsumerPool::stray`] says may be stray.
    fn reconcile(&self) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// The next job: taken with its payload, none for now (the backend has waited, or
    /// recovered from a failure; the loop looks again), or the stop came first. `room` is
    /// how many jobs the pool could start now (at least 1): a backend may take that many
    /// at once and hand out the rest on the next calls.
    fn next(
        &self,
        fetcher: &mut Self::Fetcher,
        config: &ConsumerConfig,
        stop: &watch::Receiver<bool>,
        room: usize,
    ) -> impl Future<Output = Next<Self::Taken>> + Send;

    /// Acknowledges a job that is over (`done`), or hands it back.
    fn settle(&self, job: &Self::Taken, done: bool) -> impl Future<Output = ()> + Send;
}

/// What [`ConsumerPool::next`] found.
pub(crate) enum Next<T> {
    Job { taken: T, payload: String },
    Again,
    Stopped,
}

/// Takes jobs while one of `slots` (the pool's `config.concurrency`, which several loops
/// may share) is free and runs each in `jobs`, until
/// `stop` turns true. A job taken as the shutdown began goes back unstarted.
pub(crate) async fn fetch_loop<P: ConsumerPool>(
    pool: &Arc<P>,
    fetcher: &mut P::Fetcher,
    config: &ConsumerConfig,
    context: &JobContext,
    stop: &watch::Receiver<bool>,
    slots: &Arc<Semaphore>,
    jobs: &mut JoinSet<()>,
) {
    loop {
        let slot = tokio::select! {
            slot = slots.clone().acquire_owned() => slot.expect("the semaphore is never closed"),
            () = stopped(stop) => return,
        };
        // Finished job tasks: collect them (a panic was handled inside).
        while jobs.try_join_next().is_some() {}
        if pool.stray()
            && let Err(e) = pool.reconcile().await
        {
            warn!(worker = %pool.worker(), error = %e, "could not reconcile taken jobs");
            if sleep_unless_stopped(config.restart_delay, stop).await {
                return;
            }
            continue;
        }
        // The slot held, and every other free one.
        let room = slots.available_permits() + 1;
        let (taken, payload) = match pool.next(fetcher, config, stop, room).await {
            Next::Job { taken, payload } => (taken, payload),
            Next::Again => continue,
            Next::Stopped => return,
        };
        if *stop.borrow() {
            // Taken as the shutdown began: it was never started, so it goes back.
            pool.settle(&taken, false).await;
            return;
        }
        let (pool, context) = (pool.clone(), context.clone());
        jobs.spawn(async move {
            let _slot = slot;
            let done = match serde_json::from_str::<Generate>(&payload) {
                Ok(job) => context.run_or_hand_back(job).await,
                Err(e) => {
                    error!(error = %e, "an undecodable job; dropping it");
                    true
                }
            };
            pool.settle(&taken, done).await;
        });
        // Let the job start (it is in this thread's next-task slot) before the next fetch:
        // its claim then goes out first, instead of after the next fetch's round trip or
        // on another thread woken for it.
        tokio::task::yield_now().await;
    }
}

/// How long jobs interrupted at the drain deadline get to let go and go back.
const HAND_BACK: Duration = Duration::from_secs(5);

/// Waits for running jobs, up to `timeout` (the drain deadline); then interrupts the
/// rest and hands them back to the queue. A job that cannot even be handed back within
/// a few seconds is abandoned (it runs again once its worker is found dead).
pub(crate) async fn drain(
    jobs: &mut JoinSet<()>,
    timeout: Duration,
    name: &str,
    context: &JobContext,
) {
    if all_done(jobs, timeout).await {
        return;
    }
    warn!(
        worker = name,
        running = jobs.len(),
        "running jobs outlived the drain deadline; handing them back"
    );
    let _ = context.abandon_all.send(true);
    if !all_done(jobs, HAND_BACK).await {
        warn!(
            worker = name,
            "jobs could not be handed back; abandoning them"
        );
        jobs.abort_all();
    }
}

/// Waits for every job of `jobs` to end, up to `limit`; whether they all did.
async fn all_done(jobs: &mut JoinSet<()>, limit: Duration) -> bool {
    tokio::time::timeout(limit, async { while jobs.join_next().await.is_some() {} })
        .await
        .is_ok()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use uuid::Uuid;

    use super::super::conformance::Recorder;
    use super::*;

    const FAST: Backoff = Backoff {
        initial: Duration::from_millis(1),
        max: Duration::from_millis(5),
    };

    #[tokio::test]
    async fn a_retried_job_succeeds_on_a_later_attempt() {
        let recorder = Recorder::new(|_, nth| async move {
            if nth < 2 {
                Err(JobFailure::Retry("busy".into()))
            } else {
                Ok(())
            }
        });
        let outcome = run_job(&*recorder, Generate::new(Uuid::now_v7()), 3, FAST).await;
        assert_eq!(outcome, JobOutcome::Done { attempts: 2 });
    }

    #[tokio::test]
    async fn retries_stop_at_max_attempts() {
        let recorder = Recorder::new(|_, _| async { Err(JobFailure::Retry("down".into())) });
        let outcome = run_job(&*recorder, Generate::new(Uuid::now_v7()), 4, FAST).await;
        let reason = "down".to_owned();
        assert_eq!(
            outcome,
            JobOutcome::GaveUp {
                attempts: 4,
                reason
            }
        );
        assert_eq!(recorder.total(), 4);
    }

    #[tokio::test]
    async fn a_permanent_failure_is_not_retried() {
        let recorder = Recorder::new(|_, _| async { Err(JobFailure::Permanent("gone".into())) });
        let outcome = run_job(&*recorder, Generate::new(Uuid::now_v7()), 5, FAST).await;
        let reason = "gone".to_owned();
        assert_eq!(
            outcome,
            JobOutcome::GaveUp {
                attempts: 1,
                reason
            }
        );
    }

    #[tokio::test]
    async fn a_shutdown_interrupts_the_wait_for_the_next_attempt() {
        let recorder = Recorder::new(|_, _| async { Err(JobFailure::Retry("down".into())) });
        let (stop_tx, stop) = watch::channel(false);
        let slow = Backoff {
            initial: Duration::from_secs(60),
            max: Duration::from_secs(60),
        };
        let job = Generate::new(Uuid::now_v7());
        let run =
            tokio::spawn(async move { run_job_until(&*recorder, job, 3, slow, Some(stop)).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        stop_tx.send(true).expect("the job listens");
        let outcome = tokio::time::timeout(Duration::from_secs(5), run).await;
        let outcome = outcome.expect("stops at once").expect("no panic");
        assert_eq!(outcome, JobOutcome::Interrupted { attempts: 1 });
    }
}
