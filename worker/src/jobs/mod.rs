//! The worker's one job kind, [`PromptJob`]: a turn ([`crate::turn`]), or — with `call` —
//! one asynchronous function call of a turn ([`function_call`]).
//!
//! [`run`] is a plain async function over [`Deps`]; the queue consumer
//! (`crate::consumer`) wraps it. Jobs are at-least-once, so both kinds are idempotent.

pub mod function_call;

use parley_protocol::jobs::PromptJob;

use crate::{
    deps::Deps,
    error::{Handled, JobError},
};

/// Runs one `PromptJob` job.
#[tracing::instrument(
    skip_all,
    fields(
        prompt_id = %job.prompt_id,
        worker = %deps.worker_id,
        traceparent = job.trace_context.get("traceparent").map(String::as_str).unwrap_or_default(),
    ),
    err
)]
pub async fn run(deps: &Deps, job: &PromptJob) -> Result<Handled, JobError> {
    match job.call {
        Some(call) => function_call::run(deps, job.prompt_id, call).await,
        None => crate::turn::run(deps, job).await,
    }
}
