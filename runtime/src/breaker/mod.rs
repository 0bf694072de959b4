//! Circuit breakers (DESIGN §10, seed Gesahni): a third runtime seam, shared by every
//! worker of a deployment so that one worker's failures protect the others.
//!
//! A breaker guards a key (a provider's name, a user's id). It is **closed** while calls
//! succeed; [`BreakerPolicy::failures_to_open`] consecutive failures **open** it for
//! [`BreakerPolicy::open_for`], during which [`Breakers::admit`] refuses every call
//! without a network round trip to the provider. After that it is **half-open**: the next
//! caller is admitted as the one probe, and the others are refused until the probe
//! reports — a success closes the breaker, a failure opens it again. A probe that never
//! reports (its worker died) stops holding the breaker after
//! [`BreakerPolicy::probe_timeout`], and the next caller probes.
//!
//! Two backends: [`memory::MemoryBreakers`] (embedded mode: one process) and
//! [`redis::RedisBreakers`] (distributed mode: one hash per key, changed by scripts, so
//! every worker sees the same state and transitions are atomic). Times are the callers'
//! clocks in milliseconds since the epoch, passed in (workers of one deployment keep
//! their clocks in step, as the job queue's heartbeats already assume), which also lets
//! the conformance suite (`conformance` (its tests)) run the same checks against both.

use async_trait::async_trait;
use std::time::Duration;

pub mod cached;
#[cfg(any(test, feature = "conformance"))]
pub mod conformance;
pub mod memory;
pub mod redis;

/// When a breaker opens and for how long.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BreakerPolicy {
    /// Consecutive failed calls that open the breaker (seed: 3).
    pub failures_to_open: u32,
    /// How long an open breaker refuses calls before one probe may go (seed: 30 s).
    pub open_for: Duration,
    /// How long a half-open breaker waits for its probe's report before another caller
    /// may probe.
    pub probe_timeout: Duration,
}

impl Default for BreakerPolicy {
    fn default() -> Self {
        Self {
            failures_to_open: 3,
            open_for: Duration::from_secs(30),
            probe_timeout: Duration::from_secs(30),
        }
    }
}

/// What [`Breakers::admit`] decided for one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Admission {
    /// Closed: go.
    Go,
    /// Half-open: go, as the one probe; its report decides the breaker's state.
    Probe,
    /// Open (or half-open with a probe out): do not call; ask again in `retry_in`.
    Refused { retry_in: Duration },
}

impl Admission {
    pub fn allowed(self) -> bool {
        !matches!(self, Self::Refused { .. })
    }
}

/// A breaker's state, as the admin view shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BreakerState {
    /// Calls go; `failures` consecutive ones have failed so far.
    Closed { failures: u32 },
    /// Calls are refused until `until_ms`.
    Open { until_ms: i64 },
    /// The open period is over: the next call probes (or one is out).
    HalfOpen,
}

impl BreakerState {
    /// The state's name: `closed`, `open` or `half_open`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Closed { .. } => "closed",
            Self::Open { .. } => "open",
            Self::HalfOpen => "half_open",
        }
    }
}

/// A breaker store could not be reached or answered nonsense.
#[derive(Debug, thiserror::Error)]
pub enum BreakerError {
    #[error("the breaker store is unavailable: {0}")]
    Unavailable(String),
}

pub type Result<T> = std::result::Result<T, BreakerError>;

/// Breakers by key, shared by every process that uses the same store.
#[async_trait]
pub trait Breakers: Send + Sync {
    /// Whether a call through `key` may go at `now_ms`; takes the probe when the breaker
    /// is half-open and none is out.
    async fn admit(&self, key: &str, now_ms: i64) -> Result<Admission>;

    /// [`admit`](Self::admit), and whether the breaker is closed with no failures (what
    /// a local view may remember so as not to ask again for a while), in one round trip.
    async fn admit_noting_clean(&self, key: &str, now_ms: i64) -> Result<(Admission, bool)>;

    /// Reports how an admitted call through `key` ended; returns the state after it.
    async fn record(&self, key: &str, ok: bool, now_ms: i64) -> Result<BreakerState>;

    /// The state of `key`'s breaker at `now_ms`, changing nothing.
    async fn state(&self, key: &str, now_ms: i64) -> Result<BreakerState>;
}

/// Milliseconds in `d`, for the stores' arithmetic.
pub(crate) fn millis(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// The state a breaker's stored fields mean at `now_ms`: consecutive failures, the end
/// of its open period (0: closed).
pub(crate) fn state_of(failures: u32, open_until: i64, now_ms: i64) -> BreakerState {
    if open_until == 0 {
        BreakerState::Closed { failures }
    } else if now_ms < open_until {
        BreakerState::Open {
            until_ms: open_until,
        }
    } else {
        BreakerState::HalfOpen
    }
}
