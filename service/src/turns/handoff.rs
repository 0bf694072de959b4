//! Handing a prompt to the workers: enqueueing its job, with the compensation when the
//! queue cannot take it, and starting the session's next waiting prompt when one ends.

use parley_entity::query;
use parley_protocol::error::{Error, Result};
use parley_protocol::jobs::PromptJob;
use parley_runtime::queue::JobQueue;
use sea_orm::DatabaseConnection;
use uuid::Uuid;

/// Enqueues a prompt's job. When the queue is down the prompt is given up (`failed`
/// with `unavailable`, resumable) so its session is not left waiting on a job that does
/// not exist, the session's next waiting prompt gets its chance, and the caller gets
/// [`Error::Unavailable`].
#[tracing::instrument(skip_all, fields(prompt_id = %job.prompt_id), err(level = "debug"))]
pub async fn enqueue(db: &DatabaseConnection, queue: &dyn JobQueue, job: PromptJob) -> Result<()> {
    let prompt_id = job.prompt_id;
    let Err(err) = queue.enqueue(job).await else {
        return Ok(());
    };
    tracing::error!(error = %err, %prompt_id, "cannot enqueue a turn; giving it up");
    match query::prompts::abandon(db, prompt_id, query::now()).await {
        Ok(next) => start_next(queue, next).await,
        Err(err) => tracing::error!(error = %err, %prompt_id, "cannot give up the prompt"),
    }
    Err(Error::Unavailable {
        what: "the job queue".into(),
    })
}

/// Starts the session's next waiting prompt, if any. A queue failure is only logged:
/// the reaper enqueues the prompt once the queue is back.
pub async fn start_next(queue: &dyn JobQueue, next: Option<Uuid>) {
    let Some(next) = next else { return };
    if let Err(err) = queue.enqueue(PromptJob::turn(next)).await {
        tracing::error!(error = %err, prompt_id = %next, "cannot enqueue the session's next prompt");
    }
}
