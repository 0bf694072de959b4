//! Background work on a schedule (DESIGN §10, issue #10 item 9).
//!
//! Every worker process runs the schedule, and each shared task runs in one of them per
//! period: a worker tries a task four times a period (from a random phase) and runs it
//! only when its guarded `UPDATE` takes the task's slot in `scheduled_tasks`
//! ([`query::schedule::take_slot`]), which it does when the last start is a whole period
//! old. So a task runs every one to one and a quarter periods however many workers
//! there are, a dead runner's task is run by another one period later, and the row
//! tells operators when each task last ran and how. The shared tasks:
//!
//! * `reap` — re-enqueues prompts that lost their job (every lease period), after a
//!   grace, since a prompt may just be waiting in the queue; and each worker at once
//!   when the queue's epoch changes (its Redis lost the queued jobs);
//! * `close_idle_sessions` — completes sessions idle past `worker.session_idle_s`;
//! * `archive_tool_payloads` — moves the arguments and results of function calls older
//!   than `worker.tool_payload_retention_s` to `tool_call_archive`;
//! * `rollup_metrics` — adds new usage rows and module events to the admin metrics'
//!   daily rollups ([`query::metrics::rollup`]; each row is claimed once, so a second
//!   runner could not double-count either), every `worker.rollup_every_s`.
//!
//! Three passes are the process's own, not shared: one reap with no grace when the
//! process starts (a restart resumes what the previous process had accepted); pruning
//! the event log's expired logs and the user feed's old feeds every minute
//! ([`EventLog::prune`], [`UserFeed::prune`]:
//! the in-process backends free them even when no turn runs; Redis expires keys
//! itself); and firing due timers ([`crate::timers`], every `timer_check` at most: each
//! firing is claimed by a guarded update, so every worker may look).

use std::{future::Future, sync::Arc, time::Duration};

use parley_entity::query;
use parley_runtime::{event_log::EventLog, queue::JobQueue, user_feed::UserFeed};
use rand::Rng;

use crate::{
    consumer::{close_idle_once, reap_once},
    deps::Deps,
};

/// The shared tasks, by the name of their row.
pub const TASKS: [&str; 4] = [
    "reap",
    "close_idle_sessions",
    "archive_tool_payloads",
    "rollup_metrics",
];

/// How often each pass runs.
#[derive(Debug, Clone)]
pub struct ScheduleSettings {
    /// Stranded prompts are looked for every this long.
    pub reap_every: Duration,
    /// How long a `created` active prompt may wait for its job before it is re-enqueued.
    pub grace: Duration,
    pub close_idle_every: Duration,
    /// An active session without activity for this long is completed (`end_reason`
    /// `idle`, firing `session:end`).
    pub session_idle: Duration,
    pub archive_every: Duration,
    /// Function-call payloads older than this are archived; `None`: never.
    pub payload_retention: Option<Duration>,
    /// How often the admin metrics' rollups are brought up to date.
    pub rollup_every: Duration,
    pub prune_every: Duration,
    /// The longest a worker goes without looking for due timers.
    pub timer_check: Duration,
}

impl Default for ScheduleSettings {
    fn default() -> Self {
        Self {
            reap_every: Duration::from_secs(30),
            grace: Duration::from_secs(60),
            close_idle_every: Duration::from_secs(60),
            session_idle: Duration::from_secs(24 * 3600),
            archive_every: Duration::from_secs(3600),
            payload_retention: Some(Duration::from_secs(90 * 24 * 3600)),
            rollup_every: Duration::from_secs(60),
            prune_every: Duration::from_secs(60),
            timer_check: Duration::from_secs(1),
        }
    }
}

/// The most calls one archive pass moves per transaction.
const ARCHIVE_BATCH: u64 = 500;

/// Runs the schedule until dropped.
pub async fn run(deps: Deps, queue: Arc<dyn JobQueue>, settings: ScheduleSettings) {
    reap_once(&deps, queue.as_ref(), Duration::ZERO).await;
    if let Err(err) = query::schedule::ensure(&deps.db, &TASKS).await {
        // Each slot is taken by an `UPDATE` of its row: until the rows exist nothing
        // shared runs, and the next start tries again.
        tracing::warn!(error = %err, "cannot create the scheduled tasks' rows");
    }
    let lost_jobs = reap_when_the_queue_is_lost(deps.clone(), queue.clone(), settings.reap_every);
    let reap = {
        let (deps, queue, grace) = (deps.clone(), queue.clone(), settings.grace);
        shared(deps.clone(), "reap", settings.reap_every, move || {
            let (deps, queue) = (deps.clone(), queue.clone());
            async move {
                let enqueued = reap_once(&deps, queue.as_ref(), grace).await;
                format!("ok: {enqueued} re-enqueued")
            }
        })
    };
    let idle = {
        let (deps, idle) = (deps.clone(), settings.session_idle);
        shared(
            deps.clone(),
            "close_idle_sessions",
            settings.close_idle_every,
            move || {
                let deps = deps.clone();
                async move {
                    let closed = close_idle_once(&deps, idle).await;
                    format!("ok: {closed} closed")
                }
            },
        )
    };
    let archive = {
        let (db, retention) = (deps.db.clone(), settings.payload_retention);
        shared(
            deps.clone(),
            "archive_tool_payloads",
            settings.archive_every,
            move || archive_once(db.clone(), retention),
        )
    };
    let rollup = {
        let db = deps.db.clone();
        shared(
            deps.clone(),
            "rollup_metrics",
            settings.rollup_every,
            move || rollup_once(db.clone()),
        )
    };
    let prune = local(settings.prune_every, {
        let (events, feed) = (deps.events.clone(), deps.feed.feed().clone());
        move || prune_once(events.clone(), feed.clone())
    });
    let timers = crate::timers::run(deps.clone(), settings.timer_check);
    let approvals = crate::approvals::run(deps.clone(), settings.timer_check);
    tokio::join!(
        reap, idle, archive, rollup, prune, lost_jobs, timers, approvals
    );
}

/// Tries `name`'s slot four times every `every`, from a random phase, and runs `pass`
/// when this worker takes it.
async fn shared<F, Fut>(deps: Deps, name: &'static str, every: Duration, pass: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = String>,
{
    let tick = (every / 4).max(Duration::from_millis(100));
    let phase = rand::rng().random_range(0.0..1.0);
    tokio::time::sleep(tick.mul_f64(phase)).await;
    let mut ticks = tokio::time::interval(tick);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let runner = deps.worker_id.as_str();
        match query::schedule::take_slot(&deps.db, name, runner, every, query::now()).await {
            Ok(true) => {}
            Ok(false) => continue,
            Err(err) => {
                tracing::debug!(error = %err, task = name, "cannot take a scheduled task's slot");
                continue;
            }
        }
        let outcome = pass().await;
        tracing::debug!(task = name, %outcome, "a scheduled task ran");
        if let Err(err) =
            query::schedule::finished(&deps.db, name, runner, &outcome, query::now()).await
        {
            tracing::warn!(error = %err, task = name, "cannot record a scheduled task's run");
        }
    }
}

/// Runs `pass` every `every` in this process.
async fn local<F, Fut>(every: Duration, pass: F)
where
    F: Fn() -> Fut,
    Fut: Future<Output = ()>,
{
    let mut ticks = tokio::time::interval_at(tokio::time::Instant::now() + every, every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        pass().await;
    }
}

/// Moves function-call payloads older than `retention` to the archive, a batch per
/// transaction, until none is left.
async fn archive_once(db: sea_orm::DatabaseConnection, retention: Option<Duration>) -> String {
    let Some(retention) = retention else {
        return "off".to_owned();
    };
    let retention = chrono::Duration::from_std(retention).unwrap_or(chrono::Duration::days(90));
    let mut moved = 0;
    loop {
        let now = query::now();
        match query::tool_calls::archive_payloads(&db, now - retention, ARCHIVE_BATCH, now).await {
            Ok(0) => break,
            Ok(n) => moved += n,
            Err(err) => {
                tracing::warn!(error = %err, moved, "cannot archive tool-call payloads");
                return format!("error after {moved} archived: {err}");
            }
        }
    }
    if moved > 0 {
        tracing::info!(moved, "archived tool-call payloads");
    }
    format!("ok: {moved} archived")
}

/// Brings the admin metrics' rollups up to date.
async fn rollup_once(db: sea_orm::DatabaseConnection) -> String {
    let started = std::time::Instant::now();
    match query::metrics::rollup::roll_up(&db).await {
        Ok(rolled) => {
            let ms = started.elapsed().as_millis();
            if rolled.usage_rows + rolled.module_events > 0 {
                tracing::debug!(?rolled, ms, "rolled up admin metrics");
            }
            format!(
                "ok: {} usage rows, {} module events in {ms} ms",
                rolled.usage_rows, rolled.module_events
            )
        }
        Err(err) => {
            tracing::warn!(error = %err, "cannot roll up the admin metrics");
            format!("error: {err}")
        }
    }
}

async fn prune_once(events: Arc<dyn EventLog>, feed: Arc<dyn UserFeed>) {
    match events.prune().await {
        Ok(0) => {}
        Ok(pruned) => tracing::debug!(pruned, "pruned expired event logs"),
        Err(err) => tracing::warn!(error = %err, "cannot prune the event log"),
    }
    match feed.prune().await {
        Ok(0) => {}
        Ok(pruned) => tracing::debug!(pruned, "pruned old user feeds"),
        Err(err) => tracing::warn!(error = %err, "cannot prune the user feed"),
    }
}

/// Watches the queue's [epoch](JobQueue::epoch) every `every`: when it changes, the
/// queue lost its jobs (a Redis restarted without persistence), and the prompts they
/// stood for would wait for the reaper's grace; this process reaps at once, with no
/// grace. A prompt that was only waiting in the queue gets a second job, which finds it
/// taken or finished (jobs are at-least-once and idempotent).
async fn reap_when_the_queue_is_lost(deps: Deps, queue: Arc<dyn JobQueue>, every: Duration) {
    let mut known: Option<String> = None;
    let mut ticks = tokio::time::interval(every);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        ticks.tick().await;
        let epoch = match queue.epoch().await {
            Ok(Some(epoch)) => epoch,
            // A backend that keeps its jobs: nothing to watch.
            Ok(None) => return,
            Err(err) => {
                tracing::debug!(error = %err, "cannot read the queue's epoch");
                continue;
            }
        };
        if known.as_ref().is_some_and(|k| *k != epoch) {
            tracing::warn!(
                "the job queue lost its jobs (Redis restarted without persistence?); re-enqueueing waiting prompts now"
            );
            reap_once(&deps, queue.as_ref(), Duration::ZERO).await;
        }
        known = Some(epoch);
    }
}
