//! What the stages of a turn are built from: the process's connections, caches and
//! catalogs ([`Deps`], one per worker process, cheap to clone) and the turn's settings.
//! The orchestrator (`crate::turn`) hands each stage the parts it uses.

use std::{sync::Arc, time::Duration};

use parley_runtime::{event_log::EventLog, queue::JobQueue};
use sea_orm::DatabaseConnection;

use crate::{agent_loop::LoopSettings, functions::live::LiveRegistry, providers::Catalog};

/// Everything a worker's jobs are built from.
#[derive(Clone)]
pub struct Deps {
    pub db: DatabaseConnection,
    pub events: Arc<dyn EventLog>,
    pub catalog: Arc<Catalog>,
    /// The functions models may call; a turn reads one snapshot of them.
    pub registry: LiveRegistry,
    /// The deployment's modules (hooks).
    pub modules: parley_service::modules::ModuleCatalog,
    /// Recent sessions' hook scopes.
    pub scopes: crate::hooks::ScopeCache,
    /// Recent sessions' messages, so a conversation's next turn need not read them.
    pub history: crate::history::HistoryCache,
    /// Where asynchronous function calls are queued as jobs of their own.
    pub queue: Arc<dyn JobQueue>,
    pub settings: TurnSettings,
    /// This worker's identity, recorded as the lease owner.
    pub worker_id: String,
    /// The quotas a turn's tokens count against.
    pub quotas: parley_service::quota::Quotas,
    /// The budgets a turn's model calls hold and settle against.
    pub budgets: parley_service::budget::Budgets,
    /// The per-user feed: turns finished and timers fired are published on it.
    pub feed: parley_runtime::user_feed::Publisher,
}

#[derive(Debug, Clone)]
pub struct TurnSettings {
    pub agent_loop: LoopSettings,
    /// How long a claim holds without renewal. The watcher renews it every third of
    /// this, and reads the row for a cancel whose signal was lost then.
    pub lease: Duration,
    /// The most often partial blocks are written to the database.
    pub checkpoint_interval: Duration,
    /// How long a finished prompt's event log stays readable.
    pub retention: Duration,
    /// Tokens kept free for the answer in the context window.
    pub response_buffer: usize,
    /// Deltas of a block arriving in the same window (this long, the process's) as the
    /// last one sent are merged into one event (zero: never).
    pub delta_window: Duration,
    /// The most text one merged delta carries.
    pub delta_max_bytes: usize,
    /// The model that titles a session after its first exchange (`[titles] model`);
    /// none: the first words of the first message are its title ([`crate::titles`]).
    pub title_model: Option<String>,
    /// How long a function call waits for approval before it is denied.
    pub approval_timeout: Duration,
}

impl Default for TurnSettings {
    fn default() -> Self {
        Self {
            agent_loop: LoopSettings {
                stall_timeout: Duration::from_secs(15),
                max_attempts: 3,
                retry_backoff: Duration::from_millis(250),
            },
            lease: Duration::from_secs(30),
            checkpoint_interval: Duration::from_millis(1500),
            retention: Duration::from_secs(24 * 3600),
            response_buffer: 1024,
            delta_window: Duration::from_millis(100),
            delta_max_bytes: 4096,
            title_model: None,
            approval_timeout: Duration::from_secs(24 * 3600),
        }
    }
}

impl Deps {
    /// What the hook stages use.
    pub fn modules(&self) -> crate::hooks::Modules {
        crate::hooks::Modules {
            db: self.db.clone(),
            catalog: self.modules.clone(),
            scopes: self.scopes.clone(),
        }
    }
}
