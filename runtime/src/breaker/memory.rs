//! The in-process breakers of embedded mode (one process: its workers share the map).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;

use super::{Admission, BreakerPolicy, BreakerState, Breakers, Result, millis, state_of};

/// Breakers in a map. Cheap to clone; clones share the map.
#[derive(Clone)]
pub struct MemoryBreakers {
    policy: BreakerPolicy,
    entries: Arc<Mutex<HashMap<String, Entry>>>,
}

/// A breaker that is not closed with no failures (those are simply absent).
#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    failures: u32,
    /// The end of the open period; 0: closed.
    open_until: i64,
    /// Until when the probe out holds the half-open breaker; 0: none out.
    probe_until: i64,
}

impl MemoryBreakers {
    pub fn new(policy: BreakerPolicy) -> Self {
        Self {
            policy,
            entries: Arc::default(),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn wait(ms: i64) -> Duration {
    Duration::from_millis(u64::try_from(ms.max(0)).unwrap_or(0))
}

#[async_trait]
impl Breakers for MemoryBreakers {
    async fn admit(&self, key: &str, now_ms: i64) -> Result<Admission> {
        let mut entries = self.entries();
        let Some(entry) = entries.get_mut(key) else {
            return Ok(Admission::Go);
        };
        Ok(if entry.open_until == 0 {
            Admission::Go
        } else if now_ms < entry.open_until {
            Admission::Refused {
                retry_in: wait(entry.open_until - now_ms),
            }
        } else if now_ms >= entry.probe_until {
            entry.probe_until = now_ms + millis(self.policy.probe_timeout);
            Admission::Probe
        } else {
            Admission::Refused {
                retry_in: wait(entry.probe_until - now_ms),
            }
        })
    }

    async fn admit_noting_clean(&self, key: &str, now_ms: i64) -> Result<(Admission, bool)> {
        let clean = !self.entries().contains_key(key);
        Ok((self.admit(key, now_ms).await?, clean))
    }

    async fn record(&self, key: &str, ok: bool, now_ms: i64) -> Result<BreakerState> {
        let mut entries = self.entries();
        if ok {
            entries.remove(key);
            return Ok(BreakerState::Closed { failures: 0 });
        }
        let entry = entries.entry(key.to_owned()).or_default();
        if entry.open_until != 0 || entry.failures + 1 >= self.policy.failures_to_open {
            // A failed probe (or a late report while open) opens it again.
            *entry = Entry {
                failures: 0,
                open_until: now_ms + millis(self.policy.open_for),
                probe_until: 0,
            };
        } else {
            entry.failures += 1;
        }
        Ok(state_of(entry.failures, entry.open_until, now_ms))
    }

    async fn state(&self, key: &str, now_ms: i64) -> Result<BreakerState> {
        let entry = self.entries().get(key).copied().unwrap_or_default();
        Ok(state_of(entry.failures, entry.open_until, now_ms))
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    fn backend(policy: BreakerPolicy) -> Box<dyn Breakers> {
        Box::new(MemoryBreakers::new(policy))
    }

    async fn pair(policy: BreakerPolicy) -> (Box<dyn Breakers>, Box<dyn Breakers>) {
        let one = MemoryBreakers::new(policy);
        (Box::new(one.clone()), Box::new(one))
    }

    async fn single(policy: BreakerPolicy) -> Box<dyn Breakers> {
        backend(policy)
    }

    conformance_suite!(single, pair);
}
