//! The embedded quota store: counters in this process, dropped when their window ends.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use async_trait::async_trait;

use super::{Decision, QuotaError, QuotaStore, Result, Window};

/// Counters by key, with the end of their window. Clones share the counters.
#[derive(Clone, Default)]
pub struct MemoryQuotas {
    counters: Arc<Mutex<HashMap<String, (i64, i64)>>>,
}

impl MemoryQuotas {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, (i64, i64)>) -> T) -> Result<T> {
        let mut counters = self
            .counters
            .lock()
            .map_err(|_| QuotaError::Unavailable("the quota map's lock is poisoned".into()))?;
        // Windows that ended are gone, as Redis expires them.
        let now = now_ms();
        counters.retain(|_, (_, ends_at)| *ends_at > now);
        Ok(f(&mut counters))
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[async_trait]
impl QuotaStore for MemoryQuotas {
    async fn admit(&self, windows: &[Window]) -> Result<Decision> {
        self.with(|counters| {
            let over = windows.iter().position(|w| {
                let used = counters.get(&w.key).map_or(0, |(n, _)| *n);
                used >= i64::try_from(w.limit).unwrap_or(i64::MAX)
            });
            if let Some(window) = over {
                return Decision::Refused { window };
            }
            for w in windows.iter().filter(|w| w.counts_turns) {
                counters.entry(w.key.clone()).or_insert((0, w.ends_at_ms)).0 += 1;
            }
            Decision::Admitted
        })
    }

    async fn add(&self, windows: &[Window], amount: i64) -> Result<()> {
        self.with(|counters| {
            for w in windows {
                counters.entry(w.key.clone()).or_insert((0, w.ends_at_ms)).0 += amount;
            }
        })
    }

    async fn read(&self, windows: &[Window]) -> Result<Vec<i64>> {
        self.with(|counters| {
            windows
                .iter()
                .map(|w| counters.get(&w.key).map_or(0, |(n, _)| *n))
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    async fn single() -> Box<dyn QuotaStore> {
        Box::new(MemoryQuotas::new())
    }

    async fn pair() -> (Box<dyn QuotaStore>, Box<dyn QuotaStore>) {
        let one = MemoryQuotas::new();
        (Box::new(one.clone()), Box::new(one))
    }

    conformance_suite!(single, pair);
}
