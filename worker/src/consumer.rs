//! The worker side of the job queue: runs `PromptJob` jobs through [`jobs::run`],
//! starts the session's next waiting prompt when a turn ends, and the passes the
//! [schedule](crate::schedule) runs: reaping prompts that lost their job (a crashed
//! process, a queue that dropped a job) — enqueued again, which is safe because every
//! job is idempotent — and completing sessions idle for longer than the configured
//! timeout.

use std::{sync::Arc, time::Duration};

use parley_entity::query;
use parley_protocol::jobs::PromptJob;
use parley_runtime::queue::{JobFailure, JobHandler, JobQueue};
use parley_service::turns::handoff;

use tracing::Instrument;

use crate::{deps::Deps, error::Handled, jobs};

/// Runs `PromptJob` jobs.
pub struct PromptJobHandler {
    pub deps: Deps,
    pub queue: Arc<dyn JobQueue>,
}

#[async_trait::async_trait]
impl JobHandler for PromptJobHandler {
    async fn handle(&self, job: PromptJob) -> Result<(), JobFailure> {
        // A child of the queue's `job` span, which joined the trace of the request that
        // queued the job.
        let span = tracing::info_span!("turn", prompt_id = %job.prompt_id);
        match jobs::run(&self.deps, &job).instrument(span).await {
            Ok(Handled::Done { next }) => {
                handoff::start_next(self.queue.as_ref(), next).await;
                Ok(())
            }
            Ok(Handled::Busy) => Err(JobFailure::Retry("another worker holds the prompt".into())),
            Err(err) => Err(JobFailure::Retry(err.to_string())),
        }
    }

    /// The drain deadline interrupted the turn: its lease ends now, so the worker that
    /// takes the job next claims the prompt at once (and tells readers `retry`).
    async fn hand_back(&self, job: &PromptJob) {
        let deps = &self.deps;
        match parley_entity::query::prompts::release_lease(&deps.db, job.prompt_id, &deps.worker_id)
            .await
        {
            Ok(true) => {
                tracing::info!(prompt_id = %job.prompt_id, "released the lease of an interrupted turn")
            }
            Ok(false) => {}
            Err(err) => {
                tracing::warn!(prompt_id = %job.prompt_id, error = %err, "cannot release the lease of an interrupted turn; it lapses on its own")
            }
        }
    }
}

/// One pass over idle sessions (see
/// [`SessionService::close_idle`](parley_service::SessionService::close_idle)): at most
/// 200 a pass. Returns how many it completed.
pub async fn close_idle_once(deps: &Deps, idle: Duration) -> usize {
    parley_service::SessionService::new(deps.db.clone(), deps.modules.clone())
        .with_feed(deps.feed.clone())
        .close_idle(idle, 200)
        .await
}

/// One pass: re-enqueues stranded prompts. Returns how many.
pub async fn reap_once(deps: &Deps, queue: &dyn JobQueue, grace: Duration) -> usize {
    let grace = chrono::Duration::from_std(grace).unwrap_or(chrono::Duration::seconds(60));
    let stranded = match query::prompts::stranded(&deps.db, query::now(), grace, 500).await {
        Ok(ids) => ids,
        Err(err) => {
            tracing::warn!(error = %err, "reaper: cannot look for stranded prompts");
            return 0;
        }
    };
    let mut enqueued = 0;
    for prompt_id in stranded {
        match queue.enqueue(PromptJob::turn(prompt_id)).await {
            Ok(()) => enqueued += 1,
            Err(err) => {
                tracing::warn!(error = %err, %prompt_id, "reaper: cannot re-enqueue");
                break;
            }
        }
    }
    if enqueued > 0 {
        tracing::info!(enqueued, "reaper: re-enqueued stranded prompts");
    }
    enqueued
}
