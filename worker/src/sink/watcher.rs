//! The watcher of a running turn: it turns a cancel — or a lost lease — into a [`Stop`]
//! the agent loop sees, and renews the lease meanwhile.
//!
//! A cancel is signalled, not polled (DESIGN §4): the api records it on the prompt's row,
//! then signals it on the event log, and the watcher hears the signal
//! ([`CancelListener`]), registered before the claim read the row, so a cancel recorded
//! after that read is heard. The row is read only when it must be:
//!
//! * when the listener says signals may have been missed (the backend was not listening
//!   yet, its connection dropped);
//! * at every lease renewal: the backstop for a signal lost in a way nobody noticed. The
//!   renewal's statement returns the cancel mark, so a cancel is seen within half the
//!   lease at worst.
//!
//! The lease is renewed when half of it has gone by since it was last renewed, by the
//! watcher or by a checkpoint: a streaming turn's checkpoints (every 1.5 s, one statement
//! each on PostgreSQL) renew it beside what they write and report here
//! ([`LeaseReports`]), so the watcher renews only a turn that writes nothing, such as one
//! waiting on a function. A renewal that fails is tried again every sixth of the lease.
//! A plain turn shorter than half the lease never reads the row. The watcher also stops
//! the turn when its lease has run out by its own clock (the renewals failed for a whole
//! lease): another worker may own the prompt by then, and the turn must stop writing.

use std::time::Duration;

use async_trait::async_trait;
use parley_entity::query::{self, prompts::LeaseState};
use parley_runtime::event_log::{CancelHeard, CancelListener};
use sea_orm::DatabaseConnection;
use tokio::sync::watch;
use tokio::time::Instant;
use uuid::Uuid;

/// Why a turn must stop early.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    Running,
    /// A cancel was recorded on the prompt.
    Cancelled,
    /// Another worker owns the prompt now (our lease lapsed).
    LeaseLost,
}

/// The prompt's row, as far as the watcher reads and writes it.
#[async_trait]
pub trait PromptRow: Send + Sync + 'static {
    /// Extends this worker's lease, and reads the cancel mark.
    async fn renew(&self) -> Result<LeaseState, parley_protocol::error::Error>;
    /// Whether a cancel is recorded on the prompt.
    async fn cancel_requested(&self) -> Result<bool, parley_protocol::error::Error>;
}

/// The prompt's row in the database.
pub struct DbRow {
    pub db: DatabaseConnection,
    pub prompt_id: Uuid,
    /// This worker, the lease owner.
    pub worker: String,
    pub lease: Duration,
}

#[async_trait]
impl PromptRow for DbRow {
    async fn renew(&self) -> Result<LeaseState, parley_protocol::error::Error> {
        let lease = chrono::Duration::from_std(self.lease).unwrap_or(chrono::Duration::seconds(60));
        let until = query::now() + lease;
        query::prompts::renew_lease(&self.db, self.prompt_id, &self.worker, until).await
    }

    async fn cancel_requested(&self) -> Result<bool, parley_protocol::error::Error> {
        query::prompts::cancel_requested(&self.db, self.prompt_id).await
    }
}

/// A renewal of the lease made beside a checkpoint: when it was sent, and what it found.
#[derive(Debug, Clone, Copy)]
pub struct Renewed {
    pub at: Instant,
    pub state: LeaseState,
}

/// Where a turn's checkpoints report the lease renewals they made.
#[derive(Clone)]
pub struct LeaseReports(std::sync::Arc<watch::Sender<Option<Renewed>>>);

impl LeaseReports {
    pub fn report(&self, renewed: Renewed) {
        self.0.send_replace(Some(renewed));
    }
}

/// Watches one turn until dropped.
pub struct Watcher {
    stop: watch::Receiver<Stop>,
    reports: LeaseReports,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Watcher {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Watcher {
    /// Starts watching; the lease was taken (or renewed) just now.
    pub fn start(row: impl PromptRow, cancel: CancelListener, lease: Duration) -> Self {
        let (tx, rx) = watch::channel(Stop::Running);
        let (reports, renewals) = watch::channel(None);
        let task = tokio::spawn(async move {
            let stop = watch(&row, cancel, lease, renewals).await;
            let _ = tx.send(stop);
        });
        Self {
            stop: rx,
            reports: LeaseReports(std::sync::Arc::new(reports)),
            task,
        }
    }

    pub fn state(&self) -> Stop {
        *self.stop.borrow()
    }

    pub(super) fn receiver(&self) -> watch::Receiver<Stop> {
        self.stop.clone()
    }

    /// Where checkpoints that renew the lease say so.
    pub fn reports(&self) -> LeaseReports {
        self.reports.clone()
    }
}

/// Runs until the turn must stop, and says why.
async fn watch(
    row: &impl PromptRow,
    mut cancel: CancelListener,
    lease: Duration,
    mut renewals: watch::Receiver<Option<Renewed>>,
) -> Stop {
    let (renew_every, retry_every) = (lease / 2, lease / 6);
    let mut renewed = Instant::now();
    let mut next_renewal = renewed + renew_every;
    loop {
        tokio::select! {
            heard = cancel.heard() => match heard {
                CancelHeard::Cancelled => return Stop::Cancelled,
                CancelHeard::MaybeMissed => {
                    if cancel_on_row(row).await {
                        return Stop::Cancelled;
                    }
                }
            },
            Ok(()) = renewals.changed() => {
                let Some(report) = *renewals.borrow_and_update() else {
                    continue;
                };
                match report.state {
                    LeaseState::Held { cancelled: true } => return Stop::Cancelled,
                    LeaseState::Held { cancelled: false } => {
                        renewed = renewed.max(report.at);
                        next_renewal = renewed + renew_every;
                    }
                    LeaseState::Lost => return Stop::LeaseLost,
                }
            }
            () = tokio::time::sleep_until(next_renewal) => {
                let attempted = Instant::now();
                match row.renew().await {
                    Ok(LeaseState::Held { cancelled: true }) => return Stop::Cancelled,
                    Ok(LeaseState::Held { cancelled: false }) => {
                        renewed = attempted;
                        next_renewal = renewed + renew_every;
                    }
                    Ok(LeaseState::Lost) => return Stop::LeaseLost,
                    Err(err) => {
                        tracing::warn!(error = %err, "cannot renew the lease");
                        next_renewal = Instant::now() + retry_every;
                    }
                }
                if renewed.elapsed() >= lease {
                    tracing::warn!("the lease ran out before it could be renewed; stopping");
                    return Stop::LeaseLost;
                }
            }
        }
    }
}

/// Whether the row says the prompt was cancelled (a failed read says no: the next
/// renewal looks again).
async fn cancel_on_row(row: &impl PromptRow) -> bool {
    match row.cancel_requested().await {
        Ok(cancelled) => cancelled,
        Err(err) => {
            tracing::warn!(error = %err, "cannot check for a cancel");
            false
        }
    }
}

#[cfg(test)]
mod tests;
