//! The consumer side shared by both backends: what a backend implements for the apalis
//! worker to take its jobs ([`ConsumerPool`], driven by [`super::worker`]), the retry
//! loop around a [`JobHandler`] ([`JobContext::run`]), running one job and handing it
//! back at the drain deadline, and the stop plumbing.
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
use parley_protocol::jobs::PromptJob;
use tokio::sync::watch;
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
    job: PromptJob,
    max_attempts: u32,
    backoff: Backoff,
) -> JobOutcome {
    run_job_until(handler, job, max_attempts, backoff, None).await
}

async fn run_job_until(
    handler: &dyn JobHandler,
    job: PromptJob,
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
    pub(crate) async fn run(&self, job: PromptJob) -> JobOutcome {
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
    pub(crate) async fn run_or_hand_back(&self, job: PromptJob) -> bool {
        tokio::select! {
            done = run_one(self, job.clone()) => done,
            () = stopped(&self.abandon) => {
                warn!(prompt_id = %job.prompt_id, "the drain deadline interrupted a job; handing it back");
                self.hand_back(&job).await;
                false
            }
        }
    }

    /// Tells the handler that `job`'s run was interrupted, so it lets go of what the run
    /// held; a handler that cannot within [`HAND_BACK`] is left (what it holds lapses).
    pub(crate) async fn hand_back(&self, job: &PromptJob) {
        if tokio::time::timeout(HAND_BACK, self.handler.hand_back(job))
            .await
            .is_err()
        {
            warn!(prompt_id = %job.prompt_id, "a job could not be handed back in time; leaving it");
        }
    }

    /// The drain deadline: every running job is interrupted and handed back.
    pub(crate) fn abandon_running(&self) {
        let _ = self.abandon_all.send(true);
    }
}

/// How long a job interrupted (the drain deadline, the job timeout) gets to let go.
const HAND_BACK: Duration = Duration::from_secs(5);

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
pub(crate) async fn run_one(context: &JobContext, job: PromptJob) -> bool {
    match AssertUnwindSafe(context.run(job)).catch_unwind().await {
        Ok(JobOutcome::Done { .. } | JobOutcome::GaveUp { .. }) => true,
        Ok(JobOutcome::Interrupted { .. }) => false,
        Err(_) => {
            error!("job handler panicked; not retrying");
            true
        }
    }
}

/// What one backend's pool of consumers (one lane of the apalis backend,
/// [`super::worker`]) gives it: how to take the next job (with the backend's own way to
/// wait for one and to recover from a failure), how to settle a job it ran, and the
/// worker's registration (heartbeats, leaving).
pub(crate) trait ConsumerPool: Send + Sync + 'static {
    /// A taken job, as the backend settles it.
    type Taken: Clone + Send + Sync + Unpin + 'static;

    /// What [`ConsumerPool::next`] fetches through (a connection of its own, a wake-up
    /// receiver).
    type Fetcher: Send + Unpin + 'static;

    /// The worker's name, for logs.
    fn worker(&self) -> &str;

    /// Opens what the pool fetches through.
    fn connect(&self) -> impl Future<Output = Result<Self::Fetcher, QueueError>> + Send;

    /// Records the worker's heartbeat and hands back the jobs of workers that missed
    /// theirs. The first registers the worker.
    fn heartbeat(
        &self,
        config: &ConsumerConfig,
    ) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// Deregisters the worker, handing back what it still holds.
    fn leave(&self) -> impl Future<Output = ()> + Send;

    /// The backend may show jobs as this worker's that no job task holds (a fetch was
    /// lost): reconcile before the next fetch.
    fn mark_stray(&self);

    /// A settle failed: the backend may show jobs as this worker's that no job task holds.
    fn stray(&self) -> bool;

    /// Hands back what [`ConsumerPool::stray`] says may be stray.
    fn reconcile(&self) -> impl Future<Output = Result<(), QueueError>> + Send;

    /// The next job: taken with its payload, none for now (the backend has waited, or
    /// recovered from a failure; the caller looks again), or the stop came first. `room`
    /// is how many jobs this fetch may take (at least 1): a backend may take that many at
    /// once and hand out the rest on the next calls. A Redis pool with a room of 1 on a
    /// partitioned queue waits a short turn only (the other partitions' fetches wait for
    /// the slot).
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
        let outcome = run_job(&*recorder, PromptJob::turn(Uuid::now_v7()), 3, FAST).await;
        assert_eq!(outcome, JobOutcome::Done { attempts: 2 });
    }

    #[tokio::test]
    async fn retries_stop_at_max_attempts() {
        let recorder = Recorder::new(|_, _| async { Err(JobFailure::Retry("down".into())) });
        let outcome = run_job(&*recorder, PromptJob::turn(Uuid::now_v7()), 4, FAST).await;
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
        let outcome = run_job(&*recorder, PromptJob::turn(Uuid::now_v7()), 5, FAST).await;
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
        let job = PromptJob::turn(Uuid::now_v7());
        let run =
            tokio::spawn(async move { run_job_until(&*recorder, job, 3, slow, Some(stop)).await });
        tokio::time::sleep(Duration::from_millis(50)).await;
        stop_tx.send(true).expect("the job listens");
        let outcome = tokio::time::timeout(Duration::from_secs(5), run).await;
        let outcome = outcome.expect("stops at once").expect("no panic");
        assert_eq!(outcome, JobOutcome::Interrupted { attempts: 1 });
    }
}
