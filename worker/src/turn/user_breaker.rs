//! The per-user breaker (DESIGN §10, seed Gesahni): one user's consecutive failed turns
//! (default 3) open it, and while it is open that user's turns go straight to the
//! fallback chain — so that one user's repeated failures (a conversation a model keeps
//! failing on) do not keep burning the first model's capacity. With no fallback chain
//! the turn gets one call, no retries. After the open period the user's next turn
//! probes the first model again.
//!
//! The breaker is asked as the turn starts, in a task of its own, and the answer is
//! awaited just before the model is called — so the round trip (Redis, in distributed
//! mode, unless this worker saw the user's breaker clean within the last second) runs
//! beside the turn's history read, modules and skills, not before its first token. It
//! is told how the turn ended only when it let the turn through: a turn that skipped
//! the first model says nothing about it. (A turn a skill or a module answers was asked
//! about and says nothing either; were it the probe, the next probe waits out the
//! probe timeout.)

use std::sync::Arc;

use parley_protocol::events::FallbackReason;
use parley_runtime::breaker::{Admission, Breakers};
use tokio::task::JoinHandle;
use tracing::Instrument;
use uuid::Uuid;

use crate::{agent_loop::LoopEnd, providers::Catalog};

/// What the user's breaker said of a turn.
#[derive(Debug, Clone, Copy)]
pub(super) struct UserAdmission(Option<Admission>);

impl UserAdmission {
    /// The turn starts down the fallback chain: the breaker is open.
    pub fn skips_first(self) -> Option<FallbackReason> {
        matches!(self.0, Some(Admission::Refused { .. })).then_some(FallbackReason::UserBreaker)
    }

    /// The turn's end is to be reported.
    pub fn reports(self) -> bool {
        self.0.is_some_and(Admission::allowed)
    }
}

fn key(user_id: Uuid) -> String {
    format!("user:{user_id}")
}

fn now_ms() -> i64 {
    chrono::Utc::now().timestamp_millis()
}

/// The question put to the user's breaker, answered in a task of its own.
#[derive(Default)]
pub(super) struct Asked(Option<JoinHandle<UserAdmission>>);

/// Asks the user's breaker about a turn, without waiting for the answer.
pub(super) fn ask(catalog: &Catalog, user_id: Uuid) -> Asked {
    let Some(breakers) = catalog.user_breakers().cloned() else {
        return Asked(None);
    };
    Asked(Some(tokio::spawn(
        admit(breakers, user_id).in_current_span(),
    )))
}

impl Asked {
    /// The breaker's answer.
    pub async fn answer(self) -> UserAdmission {
        match self.0 {
            Some(task) => task.await.unwrap_or(UserAdmission(None)),
            None => UserAdmission(None),
        }
    }
}

/// A store that cannot be asked lets the turn go as usual (and is not told how it
/// ended).
async fn admit(breakers: Arc<dyn Breakers>, user_id: Uuid) -> UserAdmission {
    match breakers.admit(&key(user_id), now_ms()).await {
        Ok(admission) => {
            if !admission.allowed() {
                tracing::info!(%user_id, "the user's breaker is open: the turn starts with the fallback chain");
            }
            UserAdmission(Some(admission))
        }
        Err(err) => {
            tracing::warn!(%user_id, error = %err, "cannot ask the user's breaker");
            UserAdmission(None)
        }
    }
}

/// Tells the user's breaker how a turn it let through ended: answered (a success) or
/// failed; a cancelled turn, or one Parley failed, says nothing.
pub(super) async fn report(catalog: &Catalog, user_id: Uuid, end: &LoopEnd) {
    let Some(breakers) = catalog.user_breakers() else {
        return;
    };
    let ok = match end {
        LoopEnd::Completed | LoopEnd::Suspended => true,
        // A budget refusal is the user's spending, not their provider's failure.
        LoopEnd::Failed {
            code: parley_protocol::error::ErrorCode::BudgetExceeded,
            ..
        } => return,
        LoopEnd::Failed { .. } => false,
        LoopEnd::Cancelled | LoopEnd::Internal(_) => return,
    };
    if let Err(err) = breakers.record(&key(user_id), ok, now_ms()).await {
        tracing::warn!(%user_id, error = %err, "cannot report to the user's breaker");
    }
}
