//! The `[worker]` section of [`Settings`](super::Settings): how workers run turns, with
//! its defaults (the largest section; the others are in `sections.rs`).

use serde::{Deserialize, Serialize};

/// How workers run turns (`[worker]`).
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct WorkerSettings {
    /// Turns one process runs at the same time (`parley serve` and `parley worker`).
    #[serde(default = "default_concurrency")]
    pub concurrency: usize,
    /// No token for this long is a stall (`upstream_stall`).
    #[serde(default = "default_stall_timeout_ms")]
    pub stall_timeout_ms: u64,
    /// Provider calls per turn that may fail before any output before the turn fails.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    /// Consecutive failed calls to a provider (by any worker) that open its circuit
    /// breaker: calls are then refused without reaching it.
    #[serde(default = "default_breaker_failures")]
    pub breaker_failures: u32,
    /// How long an open provider breaker refuses calls before one probe call may go.
    #[serde(default = "default_breaker_open_s")]
    pub breaker_open_s: u64,
    /// Consecutive failed turns of one user that open the user's breaker: their turns
    /// then start with the model's fallback chain.
    #[serde(default = "default_breaker_failures")]
    pub user_breaker_failures: u32,
    /// How long an open user breaker sends the user's turns to the fallback chain.
    #[serde(default = "default_breaker_open_s")]
    pub user_breaker_open_s: u64,
    /// How long a worker owns a prompt without renewing its lease (renewed every third
    /// of it): a dead worker's prompt may be taken over this long after its last renewal.
    #[serde(default = "default_lease_s")]
    pub lease_s: u64,
    /// On SIGTERM or SIGINT, how long the turns in flight get to finish before they are
    /// handed back to the queue (their lease released) for another worker.
    #[serde(default = "default_drain_s")]
    pub drain_s: u64,
    /// The longest a worker runs one turn's job: past it the run is stopped, its lease
    /// released and the job given up (the reaper then finds the prompt stranded). A
    /// safety net for a run that hangs; a turn's own timeouts end it long before.
    #[serde(default = "default_job_timeout_s")]
    pub job_timeout_s: u64,
    /// Every this many seconds a worker tells the job queue it is alive.
    #[serde(default = "default_heartbeat_s")]
    pub heartbeat_s: u64,
    /// Heartbeats a worker may miss before the queue hands its jobs to others.
    #[serde(default = "default_missed_heartbeats")]
    pub missed_heartbeats: u32,
    /// The most often partial blocks are written to the database while a turn streams
    /// (also before each round of function calls): what a worker that takes the turn
    /// over continues from, and what `GET /v1/sessions/{id}/streaming` shows.
    #[serde(default = "default_checkpoint_ms")]
    pub checkpoint_ms: u64,
    /// How long a finished prompt's event log stays readable (then rebuilt from the
    /// database).
    #[serde(default = "default_retention_s")]
    pub event_retention_s: u64,
    /// Embedded mode (no Redis: the event log lives in the process's memory) keeps a
    /// finished prompt's events at most this long, then rebuilds feeds from the
    /// database, so memory follows the turns in flight rather than the traffic.
    #[serde(default = "default_memory_retention_s")]
    pub memory_event_retention_s: u64,
    /// Embedded mode: the most finished prompts' events kept in memory at once; past it
    /// the oldest unread ones go before their retention ends (a few KiB each).
    #[serde(default = "default_memory_max_finished")]
    pub memory_event_max_finished: usize,
    /// Deltas of one block arriving in the same window of this many milliseconds as the
    /// last one sent are merged into one event, sent when the window ends (the windows
    /// are the same for all the worker's turns; 0: every token is its own event). The
    /// first delta of a turn, and any delta in a later window, go out at once. 100 ms
    /// gives every reader ten updates a second at any model's pace.
    #[serde(default = "default_delta_window_ms")]
    pub delta_window_ms: u64,
    /// The most text (bytes) one merged delta carries.
    #[serde(default = "default_delta_max_bytes")]
    pub delta_max_bytes: usize,
    /// An active session without activity for this long is completed (`end_reason`
    /// `idle`) and its `session:end` hook fires; checked every minute.
    #[serde(default = "default_session_idle_s")]
    pub session_idle_s: u64,
    /// Function-call arguments and results older than this move from `tool_calls` to
    /// `tool_call_archive` (0: never); checked every `archive_every_s`.
    #[serde(default = "default_tool_payload_retention_s")]
    pub tool_payload_retention_s: u64,
    /// How often the archive pass runs (one worker of the deployment runs it).
    #[serde(default = "default_archive_every_s")]
    pub archive_every_s: u64,
    /// How often the rollup pass adds new usage rows and module events to the admin
    /// metrics' daily rollups (one worker of the deployment runs it; the admin views
    /// read the rows not rolled up yet directly, so this bounds cost, not freshness).
    #[serde(default = "default_rollup_every_s")]
    pub rollup_every_s: u64,
    /// The most message text (MiB) a worker keeps of recent conversations, so the next
    /// turn of one need not read its history again (0: read every turn).
    #[serde(default = "default_history_cache_mb")]
    pub history_cache_mb: usize,
    /// The per-user feed (`GET /v1/feed`) keeps about this many of a user's latest
    /// events; a reader further behind is told to refetch (`reset`).
    #[serde(default = "default_feed_max_events")]
    pub feed_max_events: usize,
    /// A user's feed is dropped this long after it was created (the next event starts
    /// a new one; readers from before get a `reset`).
    #[serde(default = "default_retention_s")]
    pub feed_max_age_s: u64,
    /// How often a worker looks for due timers (it sleeps until the next one is due
    /// when that is sooner).
    #[serde(default = "default_timer_check_ms")]
    pub timer_check_ms: u64,
    /// How long a function call waits for its user's approval before it is denied
    /// (default a day). The expiry is checked as often as timers are.
    #[serde(default = "default_approval_timeout_s")]
    pub approval_timeout_s: u64,
    /// `parley worker` only: where to serve `GET /metrics` (Prometheus) and
    /// `GET /healthz` (none: not served). `parley serve` serves both on its API port.
    #[serde(default)]
    pub metrics_listen: Option<std::net::SocketAddr>,
}

fn default_feed_max_events() -> usize {
    1000
}

fn default_timer_check_ms() -> u64 {
    1000
}

fn default_approval_timeout_s() -> u64 {
    24 * 3600
}

fn default_history_cache_mb() -> usize {
    64
}

fn default_delta_window_ms() -> u64 {
    100
}

fn default_delta_max_bytes() -> usize {
    4096
}

fn default_memory_retention_s() -> u64 {
    300
}

fn default_memory_max_finished() -> usize {
    1000
}

fn default_session_idle_s() -> u64 {
    24 * 3600
}

fn default_tool_payload_retention_s() -> u64 {
    90 * 24 * 3600
}

fn default_archive_every_s() -> u64 {
    3600
}

fn default_rollup_every_s() -> u64 {
    60
}

impl Default for WorkerSettings {
    fn default() -> Self {
        Self {
            concurrency: default_concurrency(),
            stall_timeout_ms: default_stall_timeout_ms(),
            max_attempts: default_max_attempts(),
            breaker_failures: default_breaker_failures(),
            breaker_open_s: default_breaker_open_s(),
            user_breaker_failures: default_breaker_failures(),
            user_breaker_open_s: default_breaker_open_s(),
            lease_s: default_lease_s(),
            drain_s: default_drain_s(),
            job_timeout_s: default_job_timeout_s(),
            heartbeat_s: default_heartbeat_s(),
            missed_heartbeats: default_missed_heartbeats(),
            checkpoint_ms: default_checkpoint_ms(),
            event_retention_s: default_retention_s(),
            memory_event_retention_s: default_memory_retention_s(),
            memory_event_max_finished: default_memory_max_finished(),
            delta_window_ms: default_delta_window_ms(),
            delta_max_bytes: default_delta_max_bytes(),
            session_idle_s: default_session_idle_s(),
            tool_payload_retention_s: default_tool_payload_retention_s(),
            archive_every_s: default_archive_every_s(),
            rollup_every_s: default_rollup_every_s(),
            history_cache_mb: default_history_cache_mb(),
            feed_max_events: default_feed_max_events(),
            feed_max_age_s: default_retention_s(),
            timer_check_ms: default_timer_check_ms(),
            approval_timeout_s: default_approval_timeout_s(),
            metrics_listen: None,
        }
    }
}

pub(super) fn default_concurrency() -> usize {
    8
}
pub(super) fn default_stall_timeout_ms() -> u64 {
    15_000
}
pub(super) fn default_max_attempts() -> u32 {
    3
}
fn default_breaker_failures() -> u32 {
    3
}
fn default_breaker_open_s() -> u64 {
    30
}
pub(super) fn default_lease_s() -> u64 {
    4
}
fn default_job_timeout_s() -> u64 {
    3600
}

fn default_drain_s() -> u64 {
    30
}
fn default_heartbeat_s() -> u64 {
    1
}
fn default_missed_heartbeats() -> u32 {
    3
}
pub(super) fn default_checkpoint_ms() -> u64 {
    1500
}
pub(super) fn default_retention_s() -> u64 {
    24 * 3600
}
