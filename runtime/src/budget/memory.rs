//! The embedded budget store: counters in this process. They are lost with the process
//! and seeded again from the database on first use ([`super::BudgetStore::seed`]).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use async_trait::async_trait;

use super::{BudgetError, BudgetStore, Counter, Decision, GRACE_MS, Reservation, Result, Window};

/// One window's counter: spent, the reservations in flight (id → amount, lapses at),
/// and when the counter may be dropped.
#[derive(Debug, Default)]
struct Entry {
    spent: i64,
    held: HashMap<String, (i64, i64)>,
    drop_at_ms: i64,
}

impl Entry {
    fn reserved(&mut self, now_ms: i64) -> i64 {
        self.held.retain(|_, (_, lapses)| *lapses > now_ms);
        self.held.values().map(|(amount, _)| amount).sum()
    }
}

/// Counters by key. Clones share the counters.
#[derive(Clone, Default)]
pub struct MemoryBudgets {
    counters: Arc<Mutex<HashMap<String, Entry>>>,
}

impl MemoryBudgets {
    pub fn new() -> Self {
        Self::default()
    }

    fn with<T>(&self, f: impl FnOnce(&mut HashMap<String, Entry>) -> T) -> Result<T> {
        let mut counters = self
            .counters
            .lock()
            .map_err(|_| BudgetError::Unavailable("the budget map's lock is poisoned".into()))?;
        // Counters past their period (and its grace) are gone, as Redis expires them.
        let now = now_ms();
        counters.retain(|_, e| e.drop_at_ms > now);
        Ok(f(&mut counters))
    }
}

fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as i64)
}

#[async_trait]
impl BudgetStore for MemoryBudgets {
    async fn reserve(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        now_ms: i64,
    ) -> Result<Decision> {
        self.with(|counters| {
            for (i, w) in windows.iter().enumerate() {
                let Some(entry) = counters.get_mut(&w.key) else {
                    return Decision::Unseeded { window: i };
                };
                if entry.spent + entry.reserved(now_ms) >= w.limit {
                    return Decision::Refused { window: i };
                }
            }
            if reservation.amount > 0 {
                for w in windows {
                    if let Some(entry) = counters.get_mut(&w.key) {
                        entry.held.insert(
                            reservation.id.clone(),
                            (reservation.amount, reservation.expires_at_ms),
                        );
                        entry.drop_at_ms =
                            entry.drop_at_ms.max(reservation.expires_at_ms + GRACE_MS);
                    }
                }
            }
            Decision::Admitted
        })
    }

    async fn settle(
        &self,
        windows: &[Window],
        reservation: &Reservation,
        actual: i64,
    ) -> Result<()> {
        self.with(|counters| {
            for w in windows {
                if let Some(entry) = counters.get_mut(&w.key) {
                    entry.held.remove(&reservation.id);
                    entry.spent += actual;
                }
            }
        })
    }

    async fn seed(&self, window: &Window, spent: i64) -> Result<bool> {
        self.with(|counters| {
            if counters.contains_key(&window.key) {
                return false;
            }
            counters.insert(
                window.key.clone(),
                Entry {
                    spent,
                    held: HashMap::new(),
                    drop_at_ms: window.ends_at_ms + GRACE_MS,
                },
            );
            true
        })
    }

    async fn read(&self, windows: &[Window], now_ms: i64) -> Result<Vec<Option<Counter>>> {
        self.with(|counters| {
            windows
                .iter()
                .map(|w| {
                    counters.get_mut(&w.key).map(|e| Counter {
                        spent: e.spent,
                        reserved: e.reserved(now_ms),
                    })
                })
                .collect()
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::conformance::conformance_suite;
    use super::*;

    async fn single() -> Box<dyn BudgetStore> {
        Box::new(MemoryBudgets::new())
    }

    /// Two handles on one process's counters (the api and the workers of `parley serve`).
    async fn pair() -> (Box<dyn BudgetStore>, Box<dyn BudgetStore>) {
        let store = MemoryBudgets::new();
        (Box::new(store.clone()), Box::new(store))
    }

    conformance_suite!(single, pair);
}
