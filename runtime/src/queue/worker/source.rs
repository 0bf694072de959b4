//! The apalis backend over Parley's queues: [`QueueSource`] and its lanes (see the
//! parent module's documentation).

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use apalis_core::backend::finalize::Ephemeral;
use apalis_core::backend::{Backend, BackendConfig};
use apalis_core::task::Task;
use apalis_core::task::builder::TaskBuilder;
use apalis_core::task::task_id::{RandomId, TaskId};
use apalis_core::worker::context::WorkerContext;
use futures::future::BoxFuture;
use parley_protocol::jobs::PromptJob;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tracing::{error, warn};
use uuid::Uuid;

use super::WorkerParts;
use super::service::SettleLayer;
use crate::queue::consumer::{ConsumerPool, JobContext, Next, sleep_unless_stopped};
use crate::queue::{ConsumerConfig, QueueError};

/// A job a lane took, as the worker's service stack receives it.
pub(crate) struct Delivery<P: ConsumerPool> {
    pub(crate) job: PromptJob,
    /// How the lane's backend settles it.
    pub(crate) taken: P::Taken,
    pub(crate) pool: Arc<P>,
}

/// What one fetch step of a lane ended with.
enum Fetched<P: ConsumerPool> {
    Job(Box<Delivery<P>>),
    /// Nothing this time (the wait ended, or the lane recovers from a failure).
    Again,
    Stopped,
}

/// A fetch step's result, with what the lane lends the step and gets back.
struct Step<P: ConsumerPool> {
    fetcher: Option<P::Fetcher>,
    /// The lane's heartbeat, when this step started the lane.
    heartbeat: Option<JoinHandle<()>>,
    fetched: Fetched<P>,
}

/// One partition of a queue (one [`ConsumerPool`]) as the backend drives it.
struct Lane<P: ConsumerPool> {
    pool: Arc<P>,
    /// The lane's fetch connection: `None` before the lane started and while a step
    /// holds it.
    fetcher: Option<P::Fetcher>,
    step: Option<JoinHandle<Step<P>>>,
    heartbeat: Option<JoinHandle<()>>,
    stopped: bool,
}

/// Parley's queue as an apalis [`Backend`]: see the module documentation.
pub(crate) struct QueueSource<P: ConsumerPool> {
    lanes: Vec<Lane<P>>,
    /// Taken by a step, not handed to the worker yet (oldest first).
    ready: VecDeque<Delivery<P>>,
    /// The lane the next fetch starts on (round robin).
    next_lane: usize,
    /// The worker's job slots, shared with its concurrency layer: the room to fetch for.
    slots: Arc<Semaphore>,
    config: Arc<ConsumerConfig>,
    context: JobContext,
    stop: watch::Receiver<bool>,
    /// A restarted worker's lanes wait this long before they connect.
    start_after: Duration,
    closing: Option<BoxFuture<'static, ()>>,
}

impl<P: ConsumerPool> QueueSource<P> {
    pub(super) fn new(pools: Vec<Arc<P>>, worker: &WorkerParts, start_after: Duration) -> Self {
        let lanes = pools
            .into_iter()
            .map(|pool| Lane {
                pool,
                fetcher: None,
                step: None,
                heartbeat: None,
                stopped: false,
            })
            .collect();
        Self {
            lanes,
            ready: VecDeque::new(),
            next_lane: 0,
            slots: worker.slots.clone(),
            config: worker.config.clone(),
            context: worker.context.clone(),
            stop: worker.stop.clone(),
            start_after,
            closing: None,
        }
    }

    /// Starts a fetch step on lane `index`, for `room` jobs.
    fn start_step(&mut self, index: usize, room: usize) {
        let lane = &mut self.lanes[index];
        let pool = lane.pool.clone();
        let fetcher = lane.fetcher.take();
        let delay = if lane.heartbeat.is_none() {
            self.start_after
        } else {
            Duration::ZERO
        };
        let (config, stop) = (self.config.clone(), self.stop.clone());
        lane.step = Some(tokio::spawn(step(pool, fetcher, config, stop, room, delay)));
    }
}

/// One fetch on a lane: starts the lane first if it has not (connects, registers the
/// worker with a first heartbeat, starts the heartbeats), hands back strays, then takes
/// the next job. A job taken as the shutdown began goes back unstarted; one that does not
/// decode is dropped.
async fn step<P: ConsumerPool>(
    pool: Arc<P>,
    fetcher: Option<P::Fetcher>,
    config: Arc<ConsumerConfig>,
    stop: watch::Receiver<bool>,
    room: usize,
    delay: Duration,
) -> Step<P> {
    let again = |fetcher, heartbeat, stopped: bool| Step {
        fetcher,
        heartbeat,
        fetched: if stopped {
            Fetched::Stopped
        } else {
            Fetched::Again
        },
    };
    let (mut fetcher, mut heartbeat) = (fetcher, None);
    if fetcher.is_none() {
        if !delay.is_zero() && sleep_unless_stopped(delay, &stop).await {
            return again(None, None, true);
        }
        match start(&pool, &config).await {
            Ok((started, beats)) => (fetcher, heartbeat) = (Some(started), Some(beats)),
            Err(e) => {
                warn!(worker = %pool.worker(), error = %e, "a job worker's lane could not start; trying again");
                let stopped = sleep_unless_stopped(config.restart_delay, &stop).await;
                return again(None, None, stopped);
            }
        }
    }
    let Some(conn) = fetcher.as_mut() else {
        return again(None, heartbeat, *stop.borrow());
    };
    if pool.stray()
        && let Err(e) = pool.reconcile().await
    {
        warn!(worker = %pool.worker(), error = %e, "could not reconcile taken jobs");
        let stopped = sleep_unless_stopped(config.restart_delay, &stop).await;
        return again(fetcher, heartbeat, stopped);
    }
    let (taken, payload) = match pool.next(conn, &config, &stop, room).await {
        Next::Job { taken, payload } => (taken, payload),
        Next::Again => return again(fetcher, heartbeat, false),
        Next::Stopped => return again(fetcher, heartbeat, true),
    };
    if *stop.borrow() {
        // Taken as the shutdown began: it was never started, so it goes back.
        pool.settle(&taken, false).await;
        return again(fetcher, heartbeat, true);
    }
    match serde_json::from_str::<PromptJob>(&payload) {
        Ok(job) => Step {
            fetcher,
            heartbeat,
            fetched: Fetched::Job(Box::new(Delivery { job, taken, pool })),
        },
        Err(e) => {
            error!(error = %e, "an undecodable job; dropping it");
            pool.settle(&taken, true).await;
            again(fetcher, heartbeat, false)
        }
    }
}

/// Connects a lane and registers its worker (a job it takes is reaped if it dies), then
/// keeps its heartbeat on a task of its own, which beats through the drain too.
async fn start<P: ConsumerPool>(
    pool: &Arc<P>,
    config: &Arc<ConsumerConfig>,
) -> Result<(P::Fetcher, JoinHandle<()>), QueueError> {
    let fetcher = pool.connect().await?;
    pool.heartbeat(config).await?;
    let (pool, config) = (pool.clone(), config.clone());
    let beats = tokio::spawn(async move {
        let every = config.heartbeat.max(Duration::from_secs(1));
        loop {
            tokio::time::sleep(every).await;
            if let Err(e) = pool.heartbeat(&config).await {
                warn!(worker = %pool.worker(), error = %e, "job worker heartbeat failed");
            }
        }
    });
    Ok((fetcher, beats))
}

impl<P: ConsumerPool> Backend for QueueSource<P> {
    type Task = Task<Delivery<P>>;
    type Error = QueueError;

    /// Lanes start (and recover) inside their fetch steps: the backend is always ready.
    fn poll_ready(
        &mut self,
        _cx: &mut Context<'_>,
        _worker: &WorkerContext,
    ) -> Poll<Result<(), QueueError>> {
        Poll::Ready(Ok(()))
    }

    /// Called with one job slot held by the concurrency layer: collects what the lanes'
    /// steps took, and keeps a step in flight on as many lanes as there are free slots.
    fn poll_next(
        &mut self,
        cx: &mut Context<'_>,
        _worker: &WorkerContext,
    ) -> Poll<Option<Result<Self::Task, QueueError>>> {
        loop {
            for lane in &mut self.lanes {
                let Some(running) = lane.step.as_mut() else {
                    continue;
                };
                let Poll::Ready(ended) = Pin::new(running).poll(cx) else {
                    continue;
                };
                lane.step = None;
                match ended {
                    Ok(mut step) => {
                        lane.fetcher = step.fetcher.take();
                        if let Some(beats) = step.heartbeat.take()
                            && let Some(old) = lane.heartbeat.replace(beats)
                        {
                            // The lane started again (after a step panicked).
                            old.abort();
                        }
                        match step.fetched {
                            Fetched::Job(delivery) => self.ready.push_back(*delivery),
                            Fetched::Again => {}
                            Fetched::Stopped => lane.stopped = true,
                        }
                    }
                    Err(e) => {
                        // A panic: the lane starts again on a new connection, and first
                        // hands back whatever the step may have taken.
                        error!(worker = %lane.pool.worker(), error = %e, "a fetch step failed");
                        lane.pool.mark_stray();
                    }
                }
            }
            if let Some(delivery) = self.ready.pop_front() {
                // An id per delivery (a job delivered twice is two tasks to apalis).
                let id = TaskId::from_string(Uuid::now_v7().simple().to_string());
                let task = TaskBuilder::new(delivery).task_id(id).build();
                return Poll::Ready(Some(Ok(task)));
            }
            if self.lanes.iter().all(|lane| lane.stopped) {
                return Poll::Ready(None);
            }
            // The slot held for this call, and every other free one.
            let room = self.slots.available_permits() + 1;
            let lanes = self.lanes.len();
            let mut in_flight = self.lanes.iter().filter(|l| l.step.is_some()).count();
            // Fewer slots than lanes: each fetch takes its turn (one job, a short wait).
            let per_step = if room < lanes { 1 } else { room };
            let mut started = false;
            for offset in 0..lanes {
                if in_flight >= room.min(lanes) {
                    break;
                }
                let index = (self.next_lane + offset) % lanes;
                let lane = &self.lanes[index];
                if lane.step.is_some() || lane.stopped {
                    continue;
                }
                self.start_step(index, per_step);
                self.next_lane = (index + 1) % lanes;
                in_flight += 1;
                started = true;
            }
            if !started {
                return Poll::Pending;
            }
        }
    }

    /// After the running jobs ended: jobs taken and not started go back, each lane
    /// leaves, the heartbeats stop.
    fn poll_close(
        &mut self,
        cx: &mut Context<'_>,
        _worker: &WorkerContext,
    ) -> Poll<Result<(), QueueError>> {
        if self.closing.is_none() {
            let lanes = std::mem::take(&mut self.lanes);
            let ready = std::mem::take(&mut self.ready);
            self.closing = Some(Box::pin(close(lanes, ready)));
        }
        let closing = self.closing.as_mut().expect("set above");
        closing.as_mut().poll(cx).map(Ok)
    }
}

async fn close<P: ConsumerPool>(mut lanes: Vec<Lane<P>>, ready: VecDeque<Delivery<P>>) {
    for delivery in ready {
        delivery.pool.settle(&delivery.taken, false).await;
    }
    for lane in &mut lanes {
        if let Some(running) = lane.step.take()
            && let Ok(step) = running.await
        {
            if let Fetched::Job(delivery) = step.fetched {
                lane.pool.settle(&delivery.taken, false).await;
            }
            lane.heartbeat = lane.heartbeat.take().or(step.heartbeat);
        }
        if let Some(beats) = lane.heartbeat.take() {
            lane.pool.leave().await;
            beats.abort();
        }
    }
}

impl<P: ConsumerPool> Drop for Lane<P> {
    /// Dropped without closing (the process is going, a test kills the worker, even
    /// mid-close): the fetch and the heartbeats stop, so other workers reap what this one
    /// held.
    fn drop(&mut self) {
        if let Some(step) = &self.step {
            step.abort();
        }
        if let Some(beats) = &self.heartbeat {
            beats.abort();
        }
    }
}

impl<P: ConsumerPool> BackendConfig for QueueSource<P> {
    type Args = Delivery<P>;
    type Id = RandomId;
    type Kind = Ephemeral;
    type Config = ConsumerConfig;
    type Layer = SettleLayer;

    fn config(&self) -> &ConsumerConfig {
        &self.config
    }

    fn middleware(&mut self, _worker: &mut WorkerContext) -> SettleLayer {
        SettleLayer::new(self.context.clone())
    }
}
