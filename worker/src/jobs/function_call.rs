//! Asynchronous function calls (seed 000 "create" category, DESIGN §9 `sync|async`).
//!
//! When the model calls an asynchronous function, the turn records the call (`running`),
//! queues a job of its own for it (`PromptJob` with `call`), tells the model at once that
//! the work was accepted, and goes on. [`run`] is that job: it runs the function as the
//! session's user, writes the result on the call's row (once: a finished row makes a
//! repeated job a no-op) and, while the turn is still streaming, sends the call's
//! `tool_complete` on the turn's feed. A turn that ended first shows the result in its
//! rebuilt feed and in the call's row.

use std::time::Instant;

use parley_entity::{
    enums::ToolCallState,
    query::{self, tool_calls as rows},
};
use uuid::Uuid;

use crate::{
    agent_loop::{CallOutput, blocks},
    deps::Deps,
    error::{Handled, JobError, TurnError},
    functions::{CallContext, FunctionError, Progress},
};

/// Runs asynchronous call `call_id` of prompt `prompt_id` to its end.
#[tracing::instrument(skip_all, fields(%prompt_id, %call_id), err)]
pub async fn run(deps: &Deps, prompt_id: Uuid, call_id: Uuid) -> Result<Handled, JobError> {
    let row = rows::get(&deps.db, call_id).await?;
    if blocks::finished(row.state) {
        return Ok(Handled::Done { next: None });
    }
    let prompt = query::prompts::get(&deps.db, prompt_id).await?;
    let session = query::sessions::get(&deps.db, prompt.session_id).await?;
    let started = Instant::now();
    let registry = deps.registry.snapshot();
    let (state, output) = match registry.get(&row.tool_name).cloned() {
        None => (
            ToolCallState::Error,
            CallOutput::Failed(format!(
                "no function named `{}` is available here",
                row.tool_name
            )),
        ),
        Some(function) => {
            let ctx = CallContext {
                db: deps.db.clone(),
                user_id: session.user_id,
                session_id: session.id,
                prompt_id: prompt.id,
                call_id: row.id,
                session_config: session.config.clone(),
            };
            let timeout = function.spec().timeout;
            let progress = Progress::discard();
            let call = function.call(&ctx, row.tool_args.clone(), &progress);
            let ended = tokio::time::timeout(timeout, call).await;
            if let Ok(Err(FunctionError::Storage(err))) = ended {
                // The job is retried: storage may be back by then.
                return Err(err.into());
            }
            match crate::functions::runner::settle(&row.tool_name, ended) {
                (ToolCallState::Success, CallOutput::Result(output)) => {
                    match registry.payload_of(&row.tool_name, &output) {
                        Some(Err(why)) => {
                            (ToolCallState::Error, CallOutput::Failed(why.to_string()))
                        }
                        _ => (ToolCallState::Success, CallOutput::Result(output)),
                    }
                }
                other => other,
            }
        }
    };
    let finished = rows::finish(
        &deps.db,
        row.id,
        None,
        state,
        Some(output.to_value()),
        output.error().map(str::to_owned),
        query::now(),
    )
    .await?;
    crate::functions::runner::count_call(&registry, &row.tool_name, finished.state);
    tracing::info!(state = ?finished.state, elapsed_ms = started.elapsed().as_millis() as u64, "an asynchronous call ended");
    // Tell the turn's readers, if the turn is still streaming.
    let prompt = query::prompts::get(&deps.db, prompt_id).await?;
    if query::prompts::UNFINISHED.contains(&prompt.state) {
        let calls = rows::of_prompt(&deps.db, prompt_id).await?;
        if let Some(n) = calls.iter().position(|c| c.id == row.id) {
            let result = registry.result_of_row(finished);
            // A log lost meanwhile starts above the turn's ceiling; the ceiling then
            // follows it.
            let ceiling = u64::try_from(prompt.seq_ceiling).unwrap_or(0);
            let event = (deps.events)
                .append_above(prompt_id, ceiling, blocks::tool_complete(n as u32, &result))
                .await
                .map_err(TurnError::from)?;
            if event.seq > ceiling {
                let seq = i64::try_from(event.seq).unwrap_or(i64::MAX);
                query::prompts::raise_seq_ceiling(&deps.db, prompt_id, seq).await?;
            }
        }
    }
    Ok(Handled::Done { next: None })
}
