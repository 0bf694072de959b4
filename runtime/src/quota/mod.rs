//! The quota seam: counters in fixed time windows, shared by every api and worker
//! process of a deployment (Redis) or kept in the process (embedded mode).
//!
//! A [`Window`] is one counter: a key that names the subject, the measure and the
//! window it counts (`turns:user:<id>:<minute>`), the limit, and when the window ends.
//! [`QuotaStore::admit`] lets one turn through only if every window given is below its
//! limit, and then counts it in the windows that count turns — atomically, so two api
//! processes cannot both let the last turn of a minute through. [`QuotaStore::add`]
//! adds to windows afterwards: the tokens a turn used, or a refund of a turn that was
//! not recorded after all. What the windows mean (which subjects, which limits) is the
//! application layer's (`parley_service::quota`).

pub mod memory;
pub mod redis;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;

use async_trait::async_trait;

/// One counter and its limit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Unique per subject, measure and window (the window's start is part of it).
    pub key: String,
    /// The counter may not reach past this: a turn is refused when it is at or above it.
    pub limit: u64,
    /// When the window ends (Unix ms); the counter may be dropped after that.
    pub ends_at_ms: i64,
    /// Whether an admitted turn counts in it (turns per minute), or it only caps
    /// (tokens per day, counted by [`QuotaStore::add`]).
    pub counts_turns: bool,
}

/// What [`QuotaStore::admit`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Counted in every window that counts turns.
    Admitted,
    /// The window at this index of the list is at its limit; nothing was counted.
    Refused { window: usize },
}

/// A quota store could not be reached or answered nonsense.
#[derive(Debug, thiserror::Error)]
pub enum QuotaError {
    #[error("the quota store is unavailable: {0}")]
    Unavailable(String),
}

pub type Result<T> = std::result::Result<T, QuotaError>;

/// Counters in windows, shared by every process that uses the same store.
#[async_trait]
pub trait QuotaStore: Send + Sync {
    /// Admits one turn if every window is below its limit, counting it in each window
    /// that counts turns; else counts nothing and names the first window at its limit.
    async fn admit(&self, windows: &[Window]) -> Result<Decision>;

    /// Adds `amount` (negative: takes away) to each window's counter.
    async fn add(&self, windows: &[Window], amount: i64) -> Result<()>;

    /// The counters of `windows` (0 for one never counted).
    async fn read(&self, windows: &[Window]) -> Result<Vec<i64>>;
}
