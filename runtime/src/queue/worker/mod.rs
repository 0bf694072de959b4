//! The workers, built and supervised by apalis 1.0: Parley's two queues as apalis
//! [`Backend`](apalis_core::backend::Backend)s ([`QueueSource`]), one apalis worker per
//! pool of consumers (its [`WorkerBuilder`]), supervised by an apalis [`Monitor`] that
//! runs it until the shutdown and starts it again if it ever fails.
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
//! * **The backend's layer** ([`SettleLayer`](service::SettleLayer)), outermost in the
//!   stack, acknowledges a job whose run is over (Redis `LREM`, SQLite `DELETE`) or hands
//!   it back to the queue when a shutdown interrupted it, and releases the prompt of a job
//!   whose run outlived the job timeout.
//! * **tower's layers**, outermost first (the order apalis checks at start-up):
//!   [`GlobalConcurrencyLimitLayer`] on the worker's job slots
//!   ([`ConsumerConfig::concurrency`], the semaphore the backend reads its room from);
//!   [`TimeoutLayer`] ([`ConsumerConfig::job_timeout`]); a tracing span per job (apalis's
//!   `TraceLayer`, carrying the prompt's id and continuing the request's trace).
//! * **The job** ([`RunJob`]) runs on a Tokio task of its own (a worker's jobs use every
//!   core), with [`JobContext`]'s retries and the drain deadline's hand-back.
//!
//! Shutdown: the stop signal ends every lane's fetch at once (a Redis fetch is unblocked
//! with `CLIENT UNBLOCK`; a job that came with it goes back), the monitor stops the
//! worker, apalis waits for the running jobs, and at the drain deadline
//! ([`ConsumerConfig::shutdown_timeout`]) the jobs still running are interrupted and
//! handed back. Then the backend closes: jobs taken and not started go back, each lane
//! leaves (deregisters its worker), and the heartbeats stop.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use apalis::layers::TimeoutLayer;
use apalis::layers::limit::GlobalConcurrencyLimitLayer;
use apalis::layers::tracing::TraceLayer;
use apalis_core::monitor::Monitor;
use apalis_core::task::Task;
use apalis_core::worker::builder::WorkerBuilder;
use tokio::sync::{Semaphore, watch};
use tracing::{info, warn};
use uuid::Uuid;

use super::consumer::{ConsumerPool, JobContext, stopped};
use super::{ConsumerConfig, JobHandler, QueueBackend};
use service::RunJob;
use source::{Delivery, QueueSource};

mod service;
mod source;

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
        // Outermost first, in the order apalis checks (`WorkerContext::bind_service`):
        // the slot, then the timeout around the traced run.
        WorkerBuilder::new(name.as_str())
            .backend(source)
            .layer(GlobalConcurrencyLimitLayer::with_semaphore(
                parts.slots.clone(),
            ))
            .layer(TimeoutLayer::new(parts.config.job_timeout))
            .layer(TraceLayer::new().make_span_with(span))
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
    let monitor = Monitor::new().should_restart(|worker, error| {
        let restart = !worker.is_shutting_down();
        if restart {
            warn!(worker = %worker.name(), %error, "job worker failed; restarting");
        }
        restart
    });
    let monitor = match backend {
        QueueBackend::Redis(queue) => {
            let queue = queue.clone();
            register(monitor, parts, move |name| queue.pools(name))
        }
        QueueBackend::Sqlite(queue) => {
            let queue = queue.clone();
            register(monitor, parts, move |name| vec![queue.pool(name)])
        }
    };
    // The monitor returns once the stop came and its worker closed (it waits for both).
    let supervise = async {
        let stop = stop.clone();
        let signal = async move {
            stopped(&stop).await;
            Ok(())
        };
        if let Err(e) = monitor.run_with_signal(signal).await {
            warn!(error = %e, "the job workers' monitor ended with errors");
        }
        info!("job consumers stopped");
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
