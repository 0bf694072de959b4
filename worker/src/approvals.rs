//! Approvals no one decided (#14): each worker process runs [`run`], which denies the
//! function calls whose approval expired (`worker.approval_timeout_s` after they began
//! to wait) and resumes their turns — the model is told no one approved in time, and the
//! call never runs.
//!
//! An expiry is a decision like the owner's (`parley_service::turns::approvals::settle`):
//! the call's guarded `UPDATE` is the claim, so two workers (or a worker and the owner's
//! click) racing for one call decide it once; the loser's 409 is expected and dropped.
//! A pass is one indexed query (`idx_tool_calls_awaiting_approval`, only waiting calls);
//! it sleeps until the next expiry, or `every` at most.

use std::time::Duration;

use parley_entity::query::{self, approvals::Verdict};
use parley_protocol::error::{Error, ErrorCode};
use parley_service::turns::approvals::{Decision, settle};

use crate::deps::Deps;

/// The most expiries one pass decides.
const BATCH: u64 = 100;
/// The shortest sleep between passes.
const MIN_WAIT: Duration = Duration::from_millis(20);

/// Denies expired approvals until dropped, looking at least every `every`.
pub async fn run(deps: Deps, every: Duration) {
    loop {
        let wait = pass(&deps, every).await;
        tokio::time::sleep(wait.max(MIN_WAIT)).await;
    }
}

/// One pass: denies the calls whose approval expired; returns how long to sleep.
pub async fn pass(deps: &Deps, every: Duration) -> Duration {
    let now = query::now();
    let expired = match query::approvals::expired(&deps.db, now, BATCH).await {
        Ok(expired) => expired,
        Err(err) => {
            tracing::warn!(error = %err, "cannot look for expired approvals");
            return every;
        }
    };
    let full = expired.len() as u64 == BATCH;
    for (prompt_id, call_id) in expired {
        expire(deps, prompt_id, call_id).await;
    }
    if full {
        return Duration::ZERO;
    }
    match query::approvals::next_expiry(&deps.db).await {
        Ok(Some(next)) => (next - query::now())
            .to_std()
            .unwrap_or(Duration::ZERO)
            .min(every),
        Ok(None) => every,
        Err(err) => {
            tracing::warn!(error = %err, "cannot read the next approval expiry");
            every
        }
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
