//! Approvals no one decided (#14): each worker process runs [`run`], which denies the
//! function calls whose approval expired (`worker.approval_timeout_s` after they began
//! to wait) and resumes their turns — the model is told no one approved in time, and the
//! call never runs. Calls of a caller's own functions (#46) that got no result in the
//! same time fail the same way.
//!
//! An expiry is a decision like the owner's (`parley_service::turns::approvals::settle`):
//! the call's guarded `UPDATE` is the claim, so two workers (or a worker and the owner's
//! click) racing for one call decide it once; the loser's 409 is expected and dropped.
//! A pass is one indexed query (`idx_tool_calls_awaiting_approval`, only waiting calls)
//! for those that expire within `every`; it sleeps until the next expiry, or `every`.

use std::time::Duration;

use parley_entity::query::{self, approvals::Verdict};
use parley_protocol::error::{Error, ErrorCode};
use parley_protocol::events::ToolCallState;
use parley_service::turns::approvals::{Decision, settle};

use crate::deps::Deps;

/// The most expiries one pass decides.
const BATCH: u64 = 100;

/// Denies expired approvals until dropped, looking at least every `every`.
pub async fn run(deps: Deps, every: Duration) {
    crate::timers::repeat(|| pass(&deps, every)).await
}

/// One pass, one query: the waiting calls that expire within `every`, earliest first.
/// Denies those expired; returns how long to sleep — until the next expiry, `every` when
/// none is near, no time when the batch was full.
pub async fn pass(deps: &Deps, every: Duration) -> Duration {
    let now = query::now();
    let horizon = now + chrono::Duration::from_std(every).unwrap_or(chrono::Duration::seconds(1));
    let upcoming = match query::approvals::due(&deps.db, horizon, BATCH).await {
        Ok(upcoming) => upcoming,
        Err(err) => {
            tracing::warn!(error = %err, "cannot look for expired approvals");
            return every;
        }
    };
    let full = upcoming.len() as u64 == BATCH;
    let (due, later): (Vec<_>, Vec<_>) = upcoming.into_iter().partition(|e| e.expires_at <= now);
    for expiry in due {
        if expiry.state == ToolCallState::AwaitingClient {
            expire_client_call(deps, expiry.prompt_id, expiry.call_id).await;
        } else {
            expire(deps, expiry.prompt_id, expiry.call_id).await;
        }
    }
    if full {
        return Duration::ZERO;
    }
    match later.first() {
        Some(next) => (next.expires_at - query::now())
            .to_std()
            .unwrap_or(Duration::ZERO),
        None => every,
    }
}

/// Denies one expired call (unless someone decided it meanwhile).
async fn expire(deps: &Deps, prompt_id: uuid::Uuid, call_id: uuid::Uuid) {
    let owner = async {
        let prompt = query::prompts::get(&deps.db, prompt_id).await?;
        let session = query::sessions::get(&deps.db, prompt.session_id).await?;
        Ok::<_, Error>((session.id, session.user_id))
    };
    let (session_id, owner) = match owner.await {
        Ok(found) => found,
        Err(err) => {
            tracing::warn!(error = %err, %call_id, "cannot read an expired approval's session");
            return;
        }
    };
    let decision = Decision {
        prompt_id,
        session_id,
        owner,
        call_id,
        verdict: Verdict::Expire,
        by: None,
    };
    match settle(&deps.db, deps.queue.as_ref(), &deps.feed, decision).await {
        Ok(_) => {}
        Err(err) if err.code() == ErrorCode::NotAwaitingApproval => {}
        Err(err) => tracing::warn!(error = %err, %call_id, "cannot deny an expired approval"),
    }
}

/// Fails one call whose caller did not answer in time (unless it answered meanwhile):
/// the model is told, and the turn resumes once no call of it waits.
async fn expire_client_call(deps: &Deps, prompt_id: uuid::Uuid, call_id: uuid::Uuid) {
    let expired = parley_service::turns::client_calls::expire(
        &deps.db,
        deps.queue.as_ref(),
        prompt_id,
        call_id,
    )
    .await;
    match expired {
        Ok(_) => {}
        Err(err) if err.code() == ErrorCode::NotAwaitingResult => {}
        Err(err) => tracing::warn!(error = %err, %call_id, "cannot end an expired client call"),
    }
}
