//! The turn service: everything the API does to a turn, in domain terms.
//!
//! A *turn* is one user message and the generation (prompt) that answers it. The API
//! [submits](TurnService::submit) it (validated, recorded under the session's
//! active-prompt policy, its job enqueued), may [cancel](TurnService::cancel) or
//! [resume](TurnService::resume) it, and may [wait](TurnService::wait_for_end) for its
//! end, and read its prompts and a session's answer in progress; the worker runs it
//! and ends it through the same rules ([`handoff`], [`record`]).

mod actions;
pub mod approvals;
mod branches;
pub mod client_calls;
mod control;
pub mod handoff;
mod reads;
pub mod record;
mod regenerate;
mod submit;
mod wait;

use std::sync::Arc;

use parley_runtime::{event_log::EventLog, queue::JobQueue};
use sea_orm::DatabaseConnection;

pub use actions::ActionOutcome;
pub use branches::Shown;
pub use reads::InProgress;
pub use regenerate::Regeneration;
pub use submit::Submission;
pub use wait::Ending;

use crate::payloads::PayloadRegistry;
use crate::{
    catalog::{Limits, Models},
    functions::SharedCatalog,
};

/// The application layer of turns; cheap to clone.
#[derive(Clone)]
pub struct TurnService {
    pub db: DatabaseConnection,
    /// Reads that may lag the primary by a moment (message lists): a streaming replica
    /// when one is configured, else the same pool as `db`.
    pub read_db: DatabaseConnection,
    pub queue: Arc<dyn JobQueue>,
    pub events: Arc<dyn EventLog>,
    pub models: Arc<Models>,
    pub limits: Limits,
    /// The functions models may call (what tools may offer), as they are now.
    pub functions: SharedCatalog,
    /// The payload types (what functions and models may attach to an answer).
    pub payloads: PayloadRegistry,
    /// Bounds on uploads and attachments.
    pub files: crate::files::FileLimits,
    /// The deployment's modules (tool definitions are checked against them).
    pub modules: crate::modules::ModuleCatalog,
    /// Turns per minute and tokens per day, per user and per group.
    pub quotas: crate::quota::Quotas,
    /// Spend limits in money, per user and per group.
    pub budgets: crate::budget::Budgets,
    /// The per-user feed: turns started are published on it (and the api follows it).
    pub feed: parley_runtime::user_feed::Publisher,
}

impl TurnService {
    /// The session service over the same database and modules: where a session ends
    /// when a turn finds it past a limit or runs its `end_session` action.
    pub fn sessions(&self) -> crate::sessions::SessionService {
        crate::sessions::SessionService::new(self.db.clone(), self.modules.clone())
            .with_feed(self.feed.clone())
    }
}
