//! The `Generate` job: one turn, from claim to `complete` (DESIGN §5), in the stages of
//! the turn:
//!
//! * [`claim`] — take the prompt with a lease, or find there is nothing to do (it
//!   finished already, another worker holds it, or it was cancelled before it ran);
//! * [`run`] — tell readers it runs, run `chat:before_ai` modules, route the message to
//!   a skill (which may answer instead of the model), save the user message, assemble
//!   the context, run the agent loop and `chat:after_ai` modules;
//! * [`finish`] — record the answer, usage and terminal state, then tell readers how the
//!   turn ended (with the rule of `parley_service::turns::record`) and hand the session
//!   to its next waiting prompt.
//!
//! [`generate`] is a plain async function over [`Deps`], so tests call it directly; the
//! queue consumer wraps it. Jobs are at-least-once, so every stage is idempotent: a job
//! for a finished prompt does nothing, a job for a prompt another worker holds is tried
//! again later, and a turn that runs again (its worker died, or it was resumed) reuses
//! the user message it already saved and tells readers to drop its partial blocks.

mod claim;
mod finish;
mod run;
mod user_breaker;

use std::{sync::Arc, time::Duration};

use parley_protocol::jobs::Generate;
use parley_runtime::{
    event_log::{EventLog, EventLogError},
    queue::JobQueue,
};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use crate::{
    agent_loop::{LoopSettings, SinkError},
    persist::{DbRow, TurnSink, Watcher},
    providers::Catalog,
    tools::live::LiveRegistry,
};

/// Everything a turn needs.
#[derive(Clone)]
pub struct Deps {
    pub db: DatabaseConnection,
    pub events: Arc<dyn EventLog>,
    pub catalog: Arc<Catalog>,
    /// The functions models may call; a turn reads one snapshot of them.
    pub registry: LiveRegistry,
    /// The deployment's modules (hooks).
    pub modules: parley_service::modules::ModuleCatalog,
    /// Recent sessions' hook scopes.
    pub scopes: crate::hooks::ScopeCache,
    /// Recent sessions' messages, so a conversation's next turn need not read them.
    pub history: crate::history::HistoryCache,
    /// Where asynchronous function calls are queued as jobs of their own.
    pub queue: Arc<dyn JobQueue>,
    pub settings: TurnSettings,
    /// This worker's identity, recorded as the lease owner.
    pub worker_id: String,
    /// The quotas a turn's tokens count against.
    pub quotas: parley_service::quota::Quotas,
}

#[derive(Debug, Clone)]
pub struct TurnSettings {
    pub agent_loop: LoopSettings,
    /// How long a claim holds without renewal. The watcher renews it every third of
    /// this, and reads the row for a cancel whose signal was lost then.
    pub lease: Duration,
    /// The most often partial blocks are written to the database.
    pub checkpoint_interval: Duration,
    /// How long a finished prompt's event log stays readable.
    pub retention: Duration,
    /// Tokens kept free for the answer in the context window.
    pub response_buffer: usize,
    /// Deltas of a block arriving within this long of the last one sent are merged into
    /// one event (zero: never).
    pub delta_window: Duration,
    /// The most text one merged delta carries.
    pub delta_max_bytes: usize,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            agent_loop: LoopSettings {
                stall_timeout: Duration::from_secs(15),
                max_attempts: 3,
                retry_backoff: Duration::from_millis(250),
            },
            lease: Duration::from_secs(30),
            checkpoint_interval: Duration::from_millis(100),
            retention: Duration::from_secs(24 * 3600),
            response_buffer: 1024,
            delta_window: Duration::from_millis(30),
            delta_max_bytes: 4096,
        }
    }
}

/// What a job did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Handled {
    /// The turn ran (to any end) or was already finished. `next` is the session's next
    /// waiting prompt, whose job the caller enqueues.
    Done { next: Option<Uuid> },
    /// Another worker holds the prompt; try the job again later.
    Busy,
}

/// Why a turn could not run to a recorded end.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    /// Another worker owns the prompt now (our lease lapsed): stop without writing.
    #[error("lost the prompt to another worker")]
    LeaseLost,
    #[error("{}", describe(.0))]
    Storage(#[from] parley_entity::error::Error),
    #[error(transparent)]
    Events(#[from] EventLogError),
}

impl From<SinkError> for TurnError {
    fn from(err: SinkError) -> Self {
        match err {
            SinkError::Events(err) => Self::Events(err),
            SinkError::Storage(err) => Self::Storage(err),
        }
    }
}

/// A failure the job cannot finish past: the queue retries it (bounded).
#[derive(Debug, thiserror::Error)]
#[error(transparent)]
pub struct JobError(#[from] TurnError);

impl From<parley_entity::error::Error> for JobError {
    fn from(err: parley_entity::error::Error) -> Self {
        Self(err.into())
    }
}

/// An error with its internal context (what was attempted and why it failed), for logs;
/// the domain error's `Display` hides that context from clients.
pub(crate) fn describe(err: &parley_entity::error::Error) -> String {
    match err {
        parley_entity::error::Error::Internal(context) => context.to_string(),
        other => other.to_string(),
    }
}

/// Runs one `Generate` job.
#[tracing::instrument(
    skip_all,
    fields(
        prompt_id = %job.prompt_id,
        worker = %deps.worker_id,
        traceparent = job.trace_context.get("traceparent").map(String::as_str).unwrap_or_default(),
    ),
    err
)]
pub async fn generate(deps: &Deps, job: &Generate) -> Result<Handled, JobError> {
    if let Some(call) = job.call {
        return crate::tools::background::run(deps, job.prompt_id, call).await;
    }
    let started = std::time::Instant::now();
    // Listening before the claim reads the row: a cancel recorded after that is heard.
    let cancel = deps.events.listen_cancel(job.prompt_id);
    let (prompt, count) = match claim::claim(deps, job.prompt_id).await? {
        claim::Start::Run(prompt, count) => (*prompt, count),
        claim::Start::Skip(handled) => return Ok(handled),
    };
    let row = DbRow {
        db: deps.db.clone(),
        prompt_id: prompt.id,
        worker: deps.worker_id.clone(),
        lease: deps.settings.lease,
    };
    let watcher = Watcher::start(row, cancel, deps.settings.lease);
    let mut sink = TurnSink::new(
        &deps.events,
        claim::seqs(&prompt),
        deps.db.clone(),
        prompt.id,
        deps.settings.checkpoint_interval,
        &watcher,
    )
    .coalesce(deps.settings.delta_window, deps.settings.delta_max_bytes);
    let known = job
        .session
        .clone()
        .map(parley_entity::sessions::Model::from);
    let ended = match run::run(deps, &prompt, &mut sink, &watcher, started, known, count).await {
        Ok(produced) => finish::finish(deps, &prompt, &mut sink, produced, count).await,
        Err(err) => Err(err),
    };
    match ended {
        Ok(next) => Ok(Handled::Done { next }),
        Err(TurnError::LeaseLost) => {
            tracing::warn!("lost the prompt to another worker; stopping");
            Ok(Handled::Done { next: None })
        }
        Err(err) => finish::fail_internally(deps, &prompt, &mut sink, err).await,
    }
}
