//! Timers that fire (#14 item 5): each worker process runs [`run`], which finds the
//! timers that are due and fires each once, however many workers look and however often
//! they restart.
//!
//! A firing ([`query::timers::fire`]) is one transaction: the timer's guarded `UPDATE`
//! (`fired_at`, only while it is pending — not fired, paused or cancelled — and due) is
//! the claim, and the notice (`⏰ The tea timer is done`, an assistant message with no
//! prompt and no model call) is appended to the session the timer was set in, in the
//! same transaction. Two workers racing for one timer: one claims it, the other finds
//! it gone. A worker that dies before it commits leaves the timer pending for the next
//! pass; a restart changes nothing, the timer is a row.
//!
//! After the commit the owner's feed hears `timer_fired` (also for a timer set with no
//! session or whose session was deleted: no notice then). A worker that dies between
//! the commit and the publish loses the feed event, not the notice.
//!
//! A timer whose session has a turn in flight (`sessions.active_prompt_id`) is not fired
//! then: it fires on the first pass after the turn ended, so a notice never lands in the
//! middle of a turn's messages (the session's row is locked while the timer fires, so
//! no turn starts in between).
//!
//! Polling is cheap: a pass is one indexed query (`idx_timers_due`) for the pending
//! timers due within [`every`](run), earliest first; it fires those that are due and
//! sleeps until the next one, or `every` at most (a timer set by another process is
//! noticed within it).

use std::time::Duration;

use parley_entity::query::{self, timers::Firing};
use parley_protocol::feed::UserEventKind;

use crate::deps::Deps;
use crate::skills::timer_notice;

/// The most timers one pass fires.
const BATCH: u64 = 100;

/// Fires due timers until dropped, looking at least every `every`.
pub async fn run(deps: Deps, every: Duration) {
    repeat(|| pass(&deps, every)).await
}

/// One pass, one query: the pending timers due within `every`, earliest first. Fires
/// those that are due; returns how long to sleep — until the next one is due, `every`
/// when none is or some wait for their turns to end, no time when the batch was full.
pub async fn pass(deps: &Deps, every: Duration) -> Duration {
    let now = query::now();
    let horizon = now + chrono::Duration::from_std(every).unwrap_or(chrono::Duration::seconds(1));
    let upcoming = match query::timers::due(&deps.db, horizon, BATCH).await {
        Ok(upcoming) => upcoming,
        Err(err) => {
            tracing::warn!(error = %err, "cannot look for due timers");
            return every;
        }
    };
    let full = upcoming.len() as u64 == BATCH;
    let (due, later): (Vec<_>, Vec<_>) = upcoming.into_iter().partition(|t| t.fires_at <= now);
    let mut deferred = 0;
    for timer in due {
        if !fire(deps, timer).await {
            deferred += 1;
        }
    }
    if deferred > 0 {
        // Those wait for their turns to end: look again a pass later.
        return every;
    }
    if full {
        return Duration::ZERO;
    }
    match later.first() {
        Some(next) => (next.fires_at - query::now())
            .to_std()
            .unwrap_or(Duration::ZERO),
        None => every,
    }
}

/// Fires one due timer; `false` when it was deferred (its session has a turn in flight).
async fn fire(deps: &Deps, timer: parley_entity::timers::Model) -> bool {
    let notice = timer_notice(&timer.label);
    match query::timers::fire(&deps.db, &timer, notice, query::now()).await {
        Ok(Firing::Fired(fired)) => {
            let query::timers::Fired { timer, notice } = *fired;
            parley_runtime::metrics::metrics().timers_fired.inc();
            tracing::info!(timer_id = %timer.id, label = %timer.label, "a timer fired");
            if let Some(notice) = &notice {
                // The session's history grew without a turn: a cached copy is stale.
                deps.history.forget(notice.session_id);
            }
            let fired = UserEventKind::TimerFired {
                timer_id: timer.id,
                label: timer.label.clone(),
                session_id: timer.session_id,
                message_id: notice.as_ref().map(|n| n.id),
            };
            deps.feed.publish(timer.user_id, fired).await;
            true
        }
        Ok(Firing::Deferred) => false,
        Ok(Firing::Gone) => true,
        Err(err) => {
            tracing::warn!(error = %err, timer_id = %timer.id, "cannot fire a timer");
            true
        }
    }
}

/// Runs `pass` until dropped: each returns how long to sleep before the next (at least
/// a few milliseconds) — the timer and approval-expiry passes.
pub(crate) async fn repeat<F, Fut>(mut pass: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Duration>,
{
    const MIN_WAIT: Duration = Duration::from_millis(20);
    loop {
        let wait = pass().await;
        tokio::time::sleep(wait.max(MIN_WAIT)).await;
    }
}
