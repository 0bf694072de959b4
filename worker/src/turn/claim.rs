//! The first stage: claim the prompt, or find there is nothing to run.

use std::{sync::Arc, time::Duration};

use parley_entity::{
    prompts,
    query::{
        self,
        prompts::{CANCEL_EVENTS, Claim, SEQ_BLOCK, SessionAt, claim as claim_prompt},
    },
};
use parley_protocol::events::EventKind;
use parley_runtime::event_log::EventLog;
use parley_service::turns::record::{self, TurnRecord};
use sea_orm::DatabaseConnection;
use uuid::Uuid;

use super::{finish::expire, persist::observe};
use crate::{
    error::{Handled, TurnError},
    sink::Seqs,
};

/// What the claim stage uses.
#[derive(Clone, Copy)]
pub(super) struct Claiming<'a> {
    pub db: &'a DatabaseConnection,
    pub events: &'a Arc<dyn EventLog>,
    /// This worker, the lease's owner.
    pub worker_id: &'a str,
    pub lease: Duration,
    /// How long a finished prompt's event log stays readable.
    pub retention: Duration,
}

/// What the claim found.
pub(super) enum Start {
    /// This worker owns the prompt now: run the turn.
    Run(Box<Claimed>),
    /// Nothing to run.
    Skip(Handled),
}

/// A prompt this worker holds, with where its session stood as the claim found it.
pub(super) struct Claimed {
    pub prompt: prompts::Model,
    pub at: SessionAt,
}

/// Claims the prompt for this worker with a lease.
#[tracing::instrument(skip(deps), err)]
pub(super) async fn claim(deps: Claiming<'_>, prompt_id: Uuid) -> Result<Start, TurnError> {
    let lease = chrono::Duration::from_std(deps.lease).unwrap_or(chrono::Duration::seconds(30));
    let claim = claim_prompt(deps.db, prompt_id, deps.worker_id, lease, query::now()).await?;
    Ok(match claim {
        Claim::Claimed(prompt, at) => Start::Run(Box::new(Claimed { prompt, at })),
        Claim::Finished(prompt) => {
            tell_the_end_again(deps, &prompt).await;
            Start::Skip(Handled::Done { next: None })
        }
        Claim::Busy => Start::Skip(Handled::Busy),
        Claim::Canceled(prompt) => Start::Skip(cancelled_before_start(deps, &prompt).await?),
    })
}

/// How the claimed attempt numbers its events: a first attempt starts an empty log (its
/// writer need not look for the end); any log that is empty — lost since an earlier
/// attempt — starts above the ceiling the claim found, which bounds every seq given out
/// before.
pub(super) fn seqs(prompt: &prompts::Model) -> Seqs {
    let ceiling = u64::try_from(prompt.seq_ceiling).unwrap_or(0);
    Seqs {
        last: (prompt.attempt == 1).then_some(0),
        floor: ceiling.saturating_sub(SEQ_BLOCK as u64),
        ceiling,
    }
}

/// How long after a prompt's end its own worker surely told readers (it appends the
/// end's two events right after the finish commits).
const TELLING: chrono::TimeDelta = chrono::TimeDelta::seconds(3);

/// A repeated job found its prompt finished. The worker that finished it may have died,
/// or lost the event log, between recording the end and telling readers — its job was
/// then not acknowledged, so it runs again here. If the log's last event is not
/// terminal, the end is told again (the `prompt_state` and terminal event, built from
/// what was recorded by the one rule), so readers do not wait for ever. A prompt that
/// ended moments ago is given the time its own worker needs first, so a living worker
/// and this job never both tell it.
async fn tell_the_end_again(deps: Claiming<'_>, prompt: &prompts::Model) {
    let untold = || async {
        match deps.events.last(prompt.id).await {
            Ok(Some(last)) if !last.kind.is_terminal() => Some(last),
            // Told, or the log is gone (readers get the end from the database).
            Ok(_) => None,
            Err(err) => {
                tracing::warn!(error = %err, "cannot check that readers were told the end");
                None
            }
        }
    };
    if untold().await.is_none() {
        return;
    }
    if let Some(ended) = prompt.completed_at {
        let wait = (ended + TELLING - query::now())
            .to_std()
            .unwrap_or_default();
        tokio::time::sleep(wait).await;
    }
    let Some(last) = untold().await else {
        return;
    };
    let end = match record::rebuild(deps.db, prompt).await {
        Ok(events) => events.into_iter().last().map(|event| event.kind),
        Err(err) => {
            tracing::warn!(error = %err, "cannot rebuild the end of a finished prompt");
            return;
        }
    };
    let Some(terminal) = end.filter(EventKind::is_terminal) else {
        return;
    };
    tracing::warn!(
        last_seq = last.seq,
        "a finished prompt's readers were never told its end; telling them now"
    );
    let mut events = deps.events.writer(prompt.id, Some(last.seq), 0);
    let told = async {
        events.append(record::state_event(prompt)).await?;
        let terminal = events.append(terminal).await?;
        if terminal.seq > u64::try_from(prompt.seq_ceiling).unwrap_or(0) {
            let seq = i64::try_from(terminal.seq).unwrap_or(i64::MAX);
            query::prompts::raise_seq_ceiling(deps.db, prompt.id, seq).await?;
        }
        Ok::<_, TurnError>(())
    };
    if let Err(err) = told.await {
        tracing::warn!(error = %err, "cannot tell readers the end of a finished prompt");
    }
    expire(deps.events, deps.retention, prompt.id).await;
}

/// A cancel arrived before any worker ran the prompt: hand the session over, then tell
/// readers (as the finish stage does: the end is written before it is told, so a reader
/// who sees `cancelled` can send the session's next message at once).
async fn cancelled_before_start(
    deps: Claiming<'_>,
    prompt: &prompts::Model,
) -> Result<Handled, TurnError> {
    let now = query::now();
    let next = query::prompts::hand_over_after_cancel(deps.db, prompt, now).await?;
    // The claim raised the ceiling by the events appended here.
    let ceiling = u64::try_from(prompt.seq_ceiling).unwrap_or(0);
    let mut events = (deps.events).writer(
        prompt.id,
        None,
        ceiling.saturating_sub(CANCEL_EVENTS as u64),
    );
    events.append(record::state_event(prompt)).await?;
    let finished = TurnRecord {
        prompt,
        answer: "",
        usage: Default::default(),
        tool_calls: &[],
    };
    if let Some(terminal) = record::terminal_event(finished) {
        events.append(terminal).await?;
    }
    expire(deps.events, deps.retention, prompt.id).await;
    observe(prompt, now, "queued");
    Ok(Handled::Done { next })
}
