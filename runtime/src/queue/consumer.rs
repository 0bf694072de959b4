//! The consumer side shared by both backends: the retry loop around a [`JobHandler`]
//! ([`JobContext::run`]), the apalis service function that runs it for the SQLite
//! backend, the wake-up/poll strategy that feeds that worker, and the stop and purge
//! plumbing of [`run_consumers`](super::run_consumers).
//!
//! Retries are ours, not the backend's: apalis's retry layer hands an exhausted job back
//! to the backend as `Failed`, and apalis-sqlite then runs it again at once, without
//! backoff. So [`run_job`] loops with an exponential backoff and reports a given-up job
//! as an apalis `AbortError` — status `Killed`, which is never re-delivered. Only a job
//! interrupted by a shutdown while it waits for its next attempt is returned as a plain
//! error, so the backend delivers it again later. (The Redis backend is Parley's own and
//! acts on the [`JobOutcome`] directly.)

use std::pin::pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use apalis::prelude::{AbortError, BoxDynError, Data, PollSnapshot, PollStrategy, WorkerError};
use apalis_core::worker::context::WorkerContext;
use futures::FutureExt;
use futures::future::BoxFuture;
use parley_protocol::jobs::Generate;
use tokio::sync::watch;
use tokio::time::{Interval, MissedTickBehavior};
use tracing::{debug, error, warn};

use super::{Backoff, ConsumerConfig, JobFailure, JobHandler, QueueBackend};

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

/// What the apalis service function needs, injected into every task with `.data(…)`.
#[derive(Clone)]
pub(crate) struct JobContext {
    handler: Arc<dyn JobHandler>,
    max_attempts: u32,
    backoff: Backoff,
    stop: watch::Receiver<bool>,
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
        Self {
            handler,
            max_attempts: config.max_attempts,
            backoff: config.backoff,
            stop,
        }
    }
}

/// The apalis service function. The job runs on its own Tokio task (so a pool uses every
/// core), aborted if the worker is dropped mid-run — as if the process had died.
pub(crate) async fn process(job: Generate, ctx: Data<JobContext>) -> Result<(), BoxDynError> {
    let ctx = JobContext::clone(&ctx);
    let run = tokio::spawn(async move { ctx.run(job).await });
    let mut run = AbortOnDrop(run);
    match (&mut run.0).await {
        Ok(JobOutcome::Done { .. }) => Ok(()),
        Ok(JobOutcome::GaveUp { reason, .. }) => Err(Box::new(AbortError::new(reason))),
        Ok(JobOutcome::Interrupted { .. }) => {
            Err("interrupted by shutdown before its next attempt".into())
        }
        Err(e) if e.is_panic() => {
            error!("job handler panicked; not retrying");
            Err(Box::new(AbortError::new("the job handler panicked")))
        }
        Err(e) => Err(Box::new(AbortError::new(e.to_string()))),
    }
}

struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Runs one worker (`run` is its `Worker::run()` future) until it ends or `stop` turns
/// true; then stops it gracefully, waiting up to `drain` for running jobs.
pub(crate) async fn drive(
    worker: WorkerContext,
    run: impl Future<Output = Result<(), WorkerError>>,
    stop: &watch::Receiver<bool>,
    drain: Duration,
) -> Result<(), WorkerError> {
    let mut run = pin!(run);
    let mut stop = stop.clone();
    tokio::select! {
        res = &mut run => return res,
        _ = stop.wait_for(|s| *s) => {}
    }
    debug!(worker = worker.name(), "stopping job worker");
    if worker.stop().is_err() {
        return Ok(()); // never started: nothing to drain
    }
    match tokio::time::timeout(drain, run).await {
        Ok(res) => res,
        Err(_) => {
            warn!(
                worker = worker.name(),
                "running jobs outlived the shutdown timeout; abandoning them (they run again later)"
            );
            Ok(())
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

/// Deletes finished jobs every `interval` until `stop` (apalis-sqlite keeps every job's
/// payload and result otherwise, forever).
pub(crate) async fn purge_periodically(
    backend: &QueueBackend,
    interval: Option<Duration>,
    stop: watch::Receiver<bool>,
) {
    let Some(interval) = interval else { return };
    // The Redis queue keeps nothing of a finished job.
    let QueueBackend::Sqlite(queue) = backend else {
        return;
    };
    while !sleep_unless_stopped(interval, &stop).await {
        let purged = queue.purge_finished().await;
        match purged {
            Ok(n) => debug!(purged = n, "purged finished jobs"),
            Err(e) => warn!(error = %e, "could not purge finished jobs"),
        }
    }
}

/// When the worker looks for jobs: at once when woken (a job was announced), else every
/// `poll_interval`. apalis's `Persisted` backends only fetch when the worker task is
/// polled, and park after an empty fetch; this strategy is what wakes them.
pub(crate) struct WakeOrTick {
    wake: Option<BoxFuture<'static, Option<watch::Receiver<u64>>>>,
    tick: Interval,
    /// Whatever must live as long as the worker for wake-ups to keep coming (the Redis
    /// subscriber connection).
    _keep: Option<Box<dyn Send + Sync>>,
}

impl WakeOrTick {
    pub(crate) fn new(
        wake: watch::Receiver<u64>,
        poll_interval: Duration,
        keep: Option<Box<dyn Send + Sync>>,
    ) -> Self {
        let mut tick = tokio::time::interval(poll_interval);
        tick.set_missed_tick_behavior(MissedTickBehavior::Delay);
        Self {
            wake: Some(changed(wake)),
            tick,
            _keep: keep,
        }
    }
}

fn changed(mut rx: watch::Receiver<u64>) -> BoxFuture<'static, Option<watch::Receiver<u64>>> {
    async move { rx.changed().await.ok().map(|()| rx) }.boxed()
}

impl PollStrategy for WakeOrTick {
    fn poll_drive(&mut self, cx: &mut Context<'_>, _: &PollSnapshot) -> Poll<Option<()>> {
        let mut fired = false;
        // Poll each source until it is pending, so both stay registered with `cx`.
        while let Some(fut) = self.wake.as_mut() {
            match fut.poll_unpin(cx) {
                Poll::Pending => break,
                Poll::Ready(rx) => {
                    fired = true;
                    self.wake = rx.map(changed);
                }
            }
        }
        while self.tick.poll_tick(cx).is_ready() {
            fired = true;
        }
        if fired {
            // The backend may be mid-fetch and park after it came back empty: ask for one
            // more poll so the announced job is fetched now rather than on the next tick.
            cx.waker().wake_by_ref();
            Poll::Ready(Some(()))
        } else {
            Poll::Pending
        }
    }
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
