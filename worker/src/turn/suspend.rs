//! A turn that stops for an approval (#14): its model called a function that needs the
//! user's approval, the call waits (`awaiting_approval`, told on the prompt's feed and
//! the user's), and the prompt lets go of its worker.
//!
//! What the attempt produced is written first — the user message if it was deferred,
//! the blocks so far, one usage row per model call made (the resumed attempt records its
//! own) — then the prompt is suspended: `waiting_for_tools` with no lease owner and no
//! expiry, so no claim takes it and the reaper passes it by. The decision (approve, deny,
//! expiry) wakes it and enqueues its job; the next attempt replays the finished calls,
//! runs the approved ones and calls the model again — it does not ask the model for the
//! calls a second time.

use parley_entity::{
    prompts,
    query::{
        self,
        approvals::{self, Suspension},
        conversation,
    },
};
use parley_protocol::jobs::PromptJob;

use super::{answer::Suspended, persist::Store};
use crate::{agent_loop::Sink, error::TurnError, sink::TurnSink};

/// Writes what the attempt has and suspends the prompt. Returns no next prompt: the
/// session's turn is still this one.
pub(super) async fn suspend(
    store: Store<'_>,
    queue: &dyn parley_runtime::queue::JobQueue,
    prompt: &prompts::Model,
    sink: &mut TurnSink,
    suspended: Suspended,
) -> Result<Option<uuid::Uuid>, TurnError> {
    if suspended.generated.user_breaker {
        let user = suspended.session.user_id;
        super::user_breaker::report(store.catalog, user, &suspended.generated.end).await;
    }
    let generation = &suspended.generated.generation;
    sink.checkpoint_now(&generation.drafts).await?;
    let usage = super::persist::usage_of_calls(prompt, &suspended.session, &generation.calls, None);
    conversation::record_usage(store.db, usage, query::now()).await?;
    match approvals::suspend(store.db, prompt.id, store.worker_id).await? {
        Suspension::Asleep => {}
        Suspension::Lost => return Err(TurnError::LeaseLost),
        // Decided before this worker let go: the turn resumes at once.
        Suspension::Decided => {
            if let Err(err) = queue.enqueue(PromptJob::turn(prompt.id)).await {
                tracing::error!(error = %err, "cannot enqueue the resumed turn; the reaper will");
            }
        }
    }
    // The worker's history cache does not know what a later attempt writes.
    store.history.forget(suspended.session.id);
    tracing::info!(
        calls = generation.results.len(),
        "the turn waits for an approval; suspended"
    );
    Ok(None)
}
