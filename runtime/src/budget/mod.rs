//! The budget seam: money counters per subject and period, shared by every api and
//! worker process of a deployment (Redis) or kept in the process (embedded mode).
//!
//! A [`Window`] is one budget in one period: a key that names the subject and the period
//! (`user:<id>:day:<n>`), its limit and when the period ends. Its counter has two parts:
//! what was *spent* (settled calls) and what is *reserved* (calls in flight, each a
//! [`Reservation`] that expires on its own so a crashed worker's cannot leak).
//! [`BudgetStore::reserve`] admits a call only while every window's spent + reserved is
//! below its limit, and then reserves its amount in all of them — atomically, so two
//! workers cannot both take the last of a budget; the overrun of a budget is therefore
//! at most one reservation. [`BudgetStore::settle`] replaces a reservation with what the
//! call cost. Amounts are integers (micro-units of the prices' currency) so that sums
//! stay exact.
//!
//! A counter that is missing (never used in this period, a restarted embedded process,
//! an evicted Redis key) is *unseeded*: `reserve` says so instead of counting from zero,
//! and the caller seeds it from the database ([`BudgetStore::seed`], set-if-absent, so
//! two processes seeding at once agree) and tries again. What the windows mean (which
//! budgets apply to a turn) is the application layer's (`parley_service::budget`).

pub mod memory;
pub mod redis;

#[cfg(any(test, feature = "conformance"))]
pub mod conformance;

use async_trait::async_trait;

/// How long a counter outlives its period: a call that started before the period ended
/// still settles into it, and the admin still reads it for a while.
pub const GRACE_MS: i64 = 3_600_000;

/// One budget in one period.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    /// Unique per budget subject, period kind and period (its start is part of it).
    pub key: String,
    /// Nothing is admitted while spent + reserved is at or above this (micro-units).
    pub limit: i64,
    /// When the period ends (Unix ms).
    pub ends_at_ms: i64,
}

/// One call's hold on its windows until it settles.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reservation {
    /// Unique per call (`<prompt>:<attempt>:<call>`).
    pub id: String,
    /// The call's worst-case cost (micro-units); 0: only check, hold nothing.
    pub amount: i64,
    /// When the hold lapses by itself if the call never settles (Unix ms).
    pub expires_at_ms: i64,
}

/// What [`BudgetStore::reserve`] decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    /// Reserved in every window.
    Admitted,
    /// The window at this index is at or over its limit; nothing was reserved.
    Refused { window: usize },
    /// The window at this index has no counter yet: seed it and try again. Nothing was
    /// reserved.
    Unseeded { window: usize },
}

/// A window's counter now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counter {
    /// Settled calls (micro-units).
    pub spent: i64,
    /// Calls in flight whose hold has not lapsed (micro-units).
    pub reserved: i64,
}

/// A budget store could not be reached or answered nonsense.
#[derive(Debug, thiserror::Error)]
pub enum BudgetError {
    #[error("the budget store is unavailable: {0}")]
    Unavailable(String),
}

pub type Result<T> = std::result::Result<T, BudgetError>;

/// Budget counters, shared by every process that uses the same store.
#[async_trait]
pub trait BudgetStore: Send + Sync {
    /// Reserves `reservation` in every window if each is seeded and below its limit;
    /// else reserves nothing and names the first window that is unseeded or over.
    /// Lapsed reservations are dropped first. `now_ms` is the caller's clock.
    async fn reserve(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        now_ms: i64,
    ) -> Result<Decision>;

    /// Ends `reservation` in every window and adds `actual` to what they spent (a
    /// window whose counter is gone is left to be seeded from the database again).
    async fn settle(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        actual: i64,
    ) -> Result<()>;

    /// Sets the window's spent amount if it has no counter; returns whether it did.
    async fn seed(&self, window: &Window, spent: i64) -> Result<bool>;

    /// The counters of `windows` (`None`: not seeded) at `now_ms`.
    async fn read(&self, windows: &[Window], now_ms: i64) -> Result<Vec<Option<Counter>>>;
}
