//! The workers of `serve` and `worker`: the consumers of the job queue, each running
//! turns with the same dependencies, and the schedule (reaper, idle sessions, archive).

use std::{sync::Arc, time::Duration};

use parley_runtime::queue::{ConsumerConfig, JobQueue, run_consumers};
use parley_worker::{consumer::PromptJobHandler, deps::Deps, schedule::ScheduleSettings};
use sea_orm::DatabaseConnection;

use super::runtime::{Runtime, hostname, turn_settings};
use crate::config::Settings;

/// Starts the consumers and the schedule; returns a stop switch and the task to await.
pub(super) fn start_workers(
    settings: &Settings,
    db: &DatabaseConnection,
    runtime: &Runtime,
) -> (
    tokio::sync::watch::Sender<bool>,
    tokio::task::JoinHandle<()>,
) {
    let worker_id = format!("{}-{}", hostname(), uuid::Uuid::now_v7().simple());
    let queue: Arc<dyn JobQueue> = Arc::new(runtime.queue.clone());
    let deps = Deps {
        db: db.clone(),
        events: runtime.events.clone(),
        catalog: runtime.catalog.clone(),
        registry: runtime.functions.clone(),
        modules: runtime.modules.clone(),
        scopes: Default::default(),
        history: parley_worker::history::HistoryCache::new(
            settings.worker.history_cache_mb << 20,
            parley_worker::prompt::MOST_READ,
        ),
        queue: queue.clone(),
        settings: turn_settings(settings),
        worker_id,
        quotas: runtime.quotas.clone(),
        budgets: runtime.budgets.clone(),
        feed: runtime.feed.clone(),
    };
    let handler = Arc::new(PromptJobHandler {
        deps: deps.clone(),
        queue: queue.clone(),
    });
    let config = ConsumerConfig {
        concurrency: settings.worker.concurrency,
        shutdown_timeout: Duration::from_secs(settings.worker.drain_s),
        job_timeout: Duration::from_secs(settings.worker.job_timeout_s.max(1)),
        heartbeat: Duration::from_secs(settings.worker.heartbeat_s),
        missed_heartbeats: settings.worker.missed_heartbeats,
        ..ConsumerConfig::default()
    };
    let backend = runtime.queue.clone();
    // A lapsed lease is noticed within one lease period.
    let lease = Duration::from_secs(settings.worker.lease_s);
    let worker = &settings.worker;
    let schedule = ScheduleSettings {
        reap_every: lease,
        grace: ScheduleSettings::default().grace.max(2 * lease),
        session_idle: Duration::from_secs(worker.session_idle_s),
        // Every minute, or as often as the idle timeout when it is shorter.
        close_idle_every: Duration::from_secs(worker.session_idle_s.clamp(1, 60)),
        archive_every: Duration::from_secs(worker.archive_every_s.max(1)),
        rollup_every: Duration::from_secs(worker.rollup_every_s.max(1)),
        timer_check: Duration::from_millis(worker.timer_check_ms.max(10)),
        payload_retention: (worker.tool_payload_retention_s > 0)
            .then(|| Duration::from_secs(worker.tool_payload_retention_s)),
        ..ScheduleSettings::default()
    };
    let (stop_tx, mut stop_rx) = tokio::sync::watch::channel(false);
    let handle = tokio::spawn(async move {
        let reaper = tokio::spawn(parley_worker::schedule::run(deps, queue, schedule));
        let shutdown = async move {
            let _ = stop_rx.wait_for(|stop| *stop).await;
        };
        run_consumers(&backend, config, handler, shutdown).await;
        reaper.abort();
    });
    (stop_tx, handle)
}
