//! The workers, built and supervised by apalis 1.0: Parley's two queues as apalis
//! [`Backend`]s ([`QueueSource`]), one apalis worker per pool of consumers (its
//! [`WorkerBuilder`]), supervised by an apalis [`Monitor`] that runs it until the
//! shutdown and starts it again if it ever fails.
//!
//! What each part does:
//!
//! * **The backend** ([`QueueSource`]) takes jobs. A queue has one *lane* per partition
//!   (Redis; SQLite has one): a lane is a [`ConsumerPool`] with its own fetch connection
//!   and its own heartbeat. apalis asks the backend for the next job only once the service
//!   stack is ready, that is once a job slot is free (below); the backend then keeps one
//!   blocking fetch in flight on as many lanes as the worker has free slots, each on a
//!   task of its own, and hands out what they take. While the worker has fewer free slots
//!   than lanes, each fetch waits a short turn at most and the next lane gets it, so a
//!   busy worker still sees every partition; a worker with room waits on all of them at
//!   once. A fetch holds no job it cannot start: at most one job per free slot is taken.
//! * **The backend's layer** ([`SettleLayer`]), outermost in the stack, acknowledges a job
//!   whose run is over (Redis `LREM`, SQLite `DELETE`) or hands it back to the queue when
//!   a shutdown interrupted it, and releases the prompt of a job whose run outlived the
//!   job timeout.
//! * **tower's layers**, in this order: a tracing span per job (apalis's `TraceLayer`,
//!   carrying the prompt's id); [`GlobalConcurrencyLimitLayer`] on the worker's job slots
//!   ([`ConsumerConfig::concurrency`], the semaphore the backend reads its room from);
//!   [`TimeoutLayer`] ([`ConsumerConfig::job_timeout`]).
//! * **The job** ([`RunJob`]) runs on a Tokio task of its own (a worker's jobs use every
//!   core), with [`JobContext`]'s retries and the drain deadline's hand-back.
//!
//! Shutdown: the stop signal ends every lane's fetch at once (a Redis fetch is unblocked
//! with `CLIENT UNBLOCK`; a job that came with it goes back), the monitor stops the
//! worker, apalis waits for the running jobs, and at the drain deadline
//! ([`ConsumerConfig::shutdown_timeout`]) the jobs still running are interrupted and
//! handed back. Then the backend closes: jobs taken and not started go back, each lane
//! leaves (deregisters its worker), and the heartbeats stop.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use apalis::layers::TimeoutLayer;
use apalis::layers::limit::GlobalConcurrencyLimitLayer;
use apalis::layers::tracing::TraceLayer;
use apalis_core::backend::finalize::Ephemeral;
use apalis_core::backend::{Backend, BackendConfig};
use apalis_core::error::BoxDynError;
use apalis_core::monitor::Monitor;
use apalis_core::task::Task;
use apalis_core::task::builder::TaskBuilder;
use apalis_core::task::task_id::{RandomId, TaskId};
use apalis_core::worker::builder::WorkerBuilder;
use apalis_core::worker::context::WorkerContext;
use futures::future::BoxFuture;
use parley_protocol::jobs::Generate;
use tokio::sync::{Semaphore, watch};
use tokio::task::JoinHandle;
use tower::{Layer, Service};
use tracing::{Instrument, error, info, warn};
use uuid::Uuid;

use super::consumer::{ConsumerPool, JobContext, Next, sleep_unless_stopped, stopped};
use super::{ConsumerConfig, JobHandler, QueueBackend, QueueError};

/// A job a lane took, as the worker's service stack receives it.
pub(crate) struct Delivery<P: ConsumerPool> {
    pub(crate) job: Generate,
    /// How the lane's backend settles it.
    taken: P::Taken,
    pool: Arc<P>,
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
    fn new(pools: Vec<Arc<P>>, worker: &WorkerParts, start_after: Duration) -> Self {
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
    match serde_json::from_str::<Generate>(&payload) {
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
                    Ok(step) => {
                        lane.fetcher = step.fetcher;
                        if step.heartbeat.is_some() {
                            lane.heartbeat = step.heartbeat;
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

impl<P: ConsumerPool> Drop for QueueSource<P> {
    /// Dropped without closing (the process is going, a test kills the worker): the
    /// heartbeats stop, so other workers reap what this one held.
    fn drop(&mut self) {
        for lane in &self.lanes {
            if let Some(step) = &lane.step {
                step.abort();
            }
            if let Some(beats) = &lane.heartbeat {
                beats.abort();
            }
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
        SettleLayer {
            context: self.context.clone(),
        }
    }
}

/// The backend's layer: settles each job once its run is over (see the module doc).
#[derive(Clone)]
pub(crate) struct SettleLayer {
    context: JobContext,
}

impl<S> Layer<S> for SettleLayer {
    type Service = Settle<S>;

    fn layer(&self, inner: S) -> Settle<S> {
        Settle {
            inner,
            context: self.context.clone(),
        }
    }
}

#[derive(Clone)]
pub(crate) struct Settle<S> {
    inner: S,
    context: JobContext,
}

impl<S, P> Service<Task<Delivery<P>>> for Settle<S>
where
    P: ConsumerPool,
    S: Service<Task<Delivery<P>>, Response = bool>,
    S::Error: Into<BoxDynError>,
    S::Future: Send + 'static,
{
    type Response = ();
    type Error = BoxDynError;
    type Future = BoxFuture<'static, Result<(), BoxDynError>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), BoxDynError>> {
        self.inner.poll_ready(cx).map_err(Into::into)
    }

    fn call(&mut self, task: Task<Delivery<P>>) -> Self::Future {
        let delivery = &task.args;
        let (pool, taken, job) = (
            delivery.pool.clone(),
            delivery.taken.clone(),
            delivery.job.clone(),
        );
        let run = self.inner.call(task);
        let context = self.context.clone();
        Box::pin(async move {
            let ran = run.await.map_err(Into::into);
            // Whether the job is over (acknowledge) rather than interrupted (hand back).
            let over = match &ran {
                Ok(over) => *over,
                Err(e) if e.is::<tower::timeout::error::Elapsed>() => {
                    error!(prompt_id = %job.prompt_id, "a job outlived the job timeout; giving it up");
                    context.hand_back(&job).await;
                    true
                }
                Err(e) => {
                    error!(prompt_id = %job.prompt_id, error = %e, "a job's run failed; giving it up");
                    true
                }
            };
            pool.settle(&taken, over).await;
            ran.map(drop)
        })
    }
}

/// The worker's service: runs a job on a task of its own (see [`JobContext`]); whether
/// it is over rather than interrupted.
#[derive(Clone)]
pub(crate) struct RunJob {
    context: JobContext,
}

impl<P: ConsumerPool> Service<Task<Delivery<P>>> for RunJob {
    type Response = bool;
    type Error = BoxDynError;
    type Future = BoxFuture<'static, Result<bool, BoxDynError>>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), BoxDynError>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, task: Task<Delivery<P>>) -> Self::Future {
        let context = self.context.clone();
        let job = task.args.job;
        let run = tokio::spawn(
            async move { context.run_or_hand_back(job).await }.instrument(tracing::Span::current()),
        );
        let run = AbortOnDrop(run);
        Box::pin(async move { run.await.map_err(Into::into) })
    }
}

/// A job's task, aborted when its run is dropped (the job timeout, a killed worker).
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// What every (re)built worker of a pool shares.
#[derive(Clone)]
struct WorkerParts {
    name: String,
    slots: Arc<Semaphore>,
    config: Arc<ConsumerConfig>,
    context: JobContext,
    stop: watch::Receiver<bool>,
}

/// Registers the pool's apalis worker with `monitor`: `pools` makes its lanes, under a
/// worker name of its own each time (a restarted worker's lanes start after
/// `restart_delay`).
fn register<P: ConsumerPool>(
    monitor: Monitor,
    parts: WorkerParts,
    pools: impl Fn(&str) -> Vec<Arc<P>> + Send + Sync + 'static,
) -> Monitor {
    monitor.register(move |restarts| {
        let name = format!("{}-{}", parts.name, Uuid::now_v7().simple());
        let start_after = if restarts == 0 {
            Duration::ZERO
        } else {
            parts.config.restart_delay
        };
        let source = QueueSource::new(pools(&name), &parts, start_after);
        // The job's span continues the trace of the request that queued it.
        let span = |task: &Task<Delivery<P>>| {
            let job = &task.args.job;
            let span = tracing::info_span!("job", prompt_id = %job.prompt_id);
            crate::trace::adopt(&span, &job.trace_context);
            span
        };
        WorkerBuilder::new(name.as_str())
            .backend(source)
            .layer(TraceLayer::new().make_span_with(span))
            .layer(GlobalConcurrencyLimitLayer::with_semaphore(
                parts.slots.clone(),
            ))
            .layer(TimeoutLayer::new(parts.config.job_timeout))
            .build(RunJob {
                context: parts.context.clone(),
            })
    })
}

/// Runs a pool of consumers on `backend` until `shutdown` resolves, then stops them
/// gracefully and returns: one apalis worker, supervised by an apalis monitor that
/// starts it again (under a new name, after [`ConsumerConfig::restart_delay`]) should it
/// fail. Lanes that cannot start (the backend unreachable) keep trying on their own.
pub async fn run_consumers(
    backend: &QueueBackend,
    config: ConsumerConfig,
    handler: Arc<dyn JobHandler>,
    shutdown: impl Future<Output = ()> + Send,
) {
    let (stop_tx, stop) = watch::channel(false);
    let context = JobContext::new(handler, &config, stop.clone());
    let parts = WorkerParts {
        name: config.name.clone(),
        slots: Arc::new(Semaphore::new(config.concurrency.max(1))),
        config: Arc::new(config.clone()),
        context: context.clone(),
        stop: stop.clone(),
    };
    let supervise = async {
        loop {
            let monitor = Monitor::new().should_restart(|worker, error| {
                warn!(worker = %worker.name(), %error, "job worker failed; restarting");
                !worker.is_shutting_down()
            });
            let monitor = match backend {
                QueueBackend::Redis(queue) => {
                    let queue = queue.clone();
                    register(monitor, parts.clone(), move |name| queue.pools(name))
                }
                QueueBackend::Sqlite(queue) => {
                    let queue = queue.clone();
                    register(monitor, parts.clone(), move |name| vec![queue.pool(name)])
                }
            };
            let signal = {
                let stop = stop.clone();
                async move {
                    stopped(&stop).await;
                    Ok(())
                }
            };
            if let Err(e) = monitor.run_with_signal(signal).await {
                warn!(error = %e, "the job workers' monitor ended with errors");
            }
            if *stop.borrow() {
                info!("job consumers stopped");
                return;
            }
            warn!("the job workers' monitor ended on its own; starting it again");
            sleep_unless_stopped(config.restart_delay, &stop).await;
        }
    };
    // The stop, then the drain deadline. Never ends on its own: the supervision does.
    let signal = async {
        shutdown.await;
        let _ = stop_tx.send(true);
        tokio::time::sleep(config.shutdown_timeout).await;
        context.abandon_running();
        std::future::pending::<()>().await;
    };
    tokio::select! {
        () = supervise => {}
        () = signal => {}
    }
}
