//! The worker's one job kind, `Generate`: a turn ([`crate::turn`]), or — with `call` —
//! one asynchronous function call of a turn ([`call`]).
//!
//! [`generate`] is a plain async function over [`Deps`]; the queue consumer
//! (`crate::consumer`) wraps it. Jobs are at-least-once, so both kinds are idempotent.

pub mod call;

use parley_protocol::jobs::Generate;

use crate::{
    deps::Deps,
    error::{Handled, JobError},
};

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
    match job.call {
        Some(call) => call::run(deps, job.prompt_id, call).await,
        None => crate::turn::run(deps, job).await,
    }
}
