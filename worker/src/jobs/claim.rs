//! The first stage: claim the prompt, or find there is nothing to run.

use parley_entity::{
    prompts,
    query::{
        self,
        prompts::{Claim, claim as claim_prompt},
    },
};
use parley_service::turns::record::{self, TurnRecord};
use uuid::Uuid;

use super::{Deps, Handled, TurnError, finish::expire};

/// What the claim found.
pub(super) enum Start {
    /// This worker owns the prompt now: run the turn. With the session's message
    /// counter as the claim found it.
    Run(Box<prompts::Model>, i32),
    /// Nothing to run.
    Skip(Handled),
}

/// Claims the prompt for this worker with a lease.
#[tracing::instrument(skip(deps), err)]
pub(super) async fn claim(deps: &Deps, prompt_id: Uuid) -> Result<Start, TurnError> {
    let lease =
        chrono::Duration::from_std(deps.settings.lease).unwrap_or(chrono::Duration::seconds(30));
    let claim = claim_prompt(&deps.db, prompt_id, &deps.worker_id, lease, query::now()).await?;
    Ok(match claim {
        Claim::Claimed(prompt, count) => Start::Run(Box::new(prompt), count),
        Claim::Finished(_) => Start::Skip(Handled::Done { next: None }),
        Claim::Busy => Start::Skip(Handled::Busy),
        Claim::Canceled(prompt) => Start::Skip(cancelled_before_start(deps, &prompt).await?),
    })
}

/// A cancel arrived before any worker ran the prompt: tell readers and hand over.
async fn cancelled_before_start(
    deps: &Deps,
    prompt: &prompts::Model,
) -> Result<Handled, TurnError> {
    deps.events
        .append(prompt.id, record::state_event(prompt))
        .await?;
    let finished = TurnRecord {
        prompt,
        answer: "",
        usage: Default::default(),
        tool_calls: &[],
    };
    if let Some(terminal) = record::terminal_event(finished) {
        deps.events.append(prompt.id, terminal).await?;
    }
    expire(deps, prompt.id).await;
    let next = query::prompts::hand_over_after_cancel(&deps.db, prompt, query::now()).await?;
    Ok(Handled::Done { next })
}
