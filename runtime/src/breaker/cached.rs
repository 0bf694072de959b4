//! A worker's view of shared breakers that spares the round trip while a breaker is
//! known to be closed: [`CachedBreakers`] wraps a shared store (Redis) for one process.
//!
//! Asking the store before every provider call would put a Redis round trip on every
//! turn's way to its first token. A breaker this process saw closed with no failures
//! within [`CachedBreakers::refresh`] admits without asking, and a success on such a
//! breaker is not reported (there is no count to reset). Failures always go to the store
//! (they are counted across workers) and bring back its state. The price: a breaker
//! another worker opened is seen here up to `refresh` later (or at this process's next
//! failure, whichever comes first).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;

use super::{Admission, BreakerState, Breakers, Result, millis};

/// Keys remembered before the stale ones are dropped.
const REMEMBERED: usize = 4096;

pub struct CachedBreakers {
    store: Arc<dyn Breakers>,
    refresh: Duration,
    /// Per key: until when (ms) it is known closed with no failures.
    clean_until: Mutex<HashMap<String, i64>>,
}

impl CachedBreakers {
    pub fn new(store: Arc<dyn Breakers>, refresh: Duration) -> Self {
        Self {
            store,
            refresh,
            clean_until: Mutex::default(),
        }
    }

    fn clean(&self) -> std::sync::MutexGuard<'_, HashMap<String, i64>> {
        self.clean_until
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn known_clean(&self, key: &str, now_ms: i64) -> bool {
        self.clean().get(key).is_some_and(|until| now_ms < *until)
    }

    /// Remembers whether the store said `key`'s breaker is closed with no failures.
    /// Keys of users come and go: past [`REMEMBERED`] keys the stale ones are forgotten.
    fn remember(&self, key: &str, is_clean: bool, now_ms: i64) {
        let mut clean = self.clean();
        if is_clean {
            if clean.len() >= REMEMBERED {
                clean.retain(|_, until| now_ms < *until);
            }
            clean.insert(key.to_owned(), now_ms + millis(self.refresh));
        } else {
            clean.remove(key);
        }
    }
}

#[async_trait]
impl Breakers for CachedBreakers {
    async fn admit(&self, key: &str, now_ms: i64) -> Result<Admission> {
        if self.known_clean(key, now_ms) {
            return Ok(Admission::Go);
        }
        Ok(self.admit_noting_clean(key, now_ms).await?.0)
    }

    async fn admit_noting_clean(&self, key: &str, now_ms: i64) -> Result<(Admission, bool)> {
        if self.known_clean(key, now_ms) {
            return Ok((Admission::Go, true));
        }
        let (admission, clean) = self.store.admit_noting_clean(key, now_ms).await?;
        self.remember(key, clean, now_ms);
        Ok((admission, clean))
    }

    async fn record(&self, key: &str, ok: bool, now_ms: i64) -> Result<BreakerState> {
        if ok && self.known_clean(key, now_ms) {
            return Ok(BreakerState::Closed { failures: 0 });
        }
        let state = self.store.record(key, ok, now_ms).await?;
        self.remember(key, state == (BreakerState::Closed { failures: 0 }), now_ms);
        Ok(state)
    }

    async fn state(&self, key: &str, now_ms: i64) -> Result<BreakerState> {
        self.store.state(key, now_ms).await
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::super::conformance::policy;
    use super::super::memory::MemoryBreakers;
    use super::*;

    /// A store that counts the calls that reach it.
    struct Counting {
        inner: MemoryBreakers,
        calls: AtomicUsize,
    }

    #[async_trait]
    impl Breakers for Counting {
        async fn admit(&self, key: &str, now_ms: i64) -> Result<Admission> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.inner.admit(key, now_ms).await
        }
        async fn admit_noting_clean(&self, key: &str, now_ms: i64) -> Result<(Admission, bool)> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.inner.admit_noting_clean(key, now_ms).await
        }
        async fn record(&self, key: &str, ok: bool, now_ms: i64) -> Result<BreakerState> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.inner.record(key, ok, now_ms).await
        }
        async fn state(&self, key: &str, now_ms: i64) -> Result<BreakerState> {
            self.calls.fetch_add(1, Ordering::SeqCst);
            self.inner.state(key, now_ms).await
        }
    }

    const T: i64 = 1_700_000_000_000;

    #[tokio::test]
    async fn a_clean_breaker_costs_no_round_trip_until_the_refresh_and_failures_always_count() {
        let store = Arc::new(Counting {
            inner: MemoryBreakers::new(policy()),
            calls: AtomicUsize::new(0),
        });
        let calls = || store.calls.load(Ordering::SeqCst);
        let worker = CachedBreakers::new(store.clone(), Duration::from_secs(1));
        let other = CachedBreakers::new(store.clone(), Duration::from_secs(1));
        assert_eq!(worker.admit("p", T).await.unwrap(), Admission::Go);
        let learnt = calls();
        assert_eq!(learnt, 1, "one round trip to learn that it is clean");
        for i in 0..10 {
            assert_eq!(worker.admit("p", T + i).await.unwrap(), Admission::Go);
            worker.record("p", true, T + i).await.unwrap();
        }
        assert_eq!(calls(), learnt, "known clean: neither asked nor told");
        // Another worker opens it; this one sees it at the refresh.
        for _ in 0..3 {
            other.record("p", false, T + 100).await.unwrap();
        }
        assert!(
            worker.admit("p", T + 999).await.unwrap().allowed(),
            "not yet seen"
        );
        assert!(
            !worker.admit("p", T + 1_000).await.unwrap().allowed(),
            "seen at the refresh"
        );
        // A failure here always reaches the store, and what it says is kept.
        let key = "q";
        worker.admit(key, T).await.unwrap();
        let before = calls();
        assert_eq!(
            worker.record(key, false, T).await.unwrap(),
            BreakerState::Closed { failures: 1 }
        );
        assert_eq!(calls(), before + 1);
        worker.admit(key, T + 1).await.unwrap();
        assert!(calls() > before + 1, "not clean any more: asked");
        worker.record(key, true, T + 2).await.unwrap();
        assert_eq!(
            store.inner.state(key, T + 2).await.unwrap(),
            BreakerState::Closed { failures: 0 },
            "the success reset the count in the store"
        );
    }

    #[tokio::test]
    async fn keys_seen_clean_long_ago_are_forgotten_when_many_come() {
        let worker = CachedBreakers::new(
            Arc::new(MemoryBreakers::new(policy())),
            Duration::from_secs(1),
        );
        for i in 0..REMEMBERED {
            worker.admit(&format!("user:{i}"), T).await.unwrap();
        }
        assert_eq!(worker.clean().len(), REMEMBERED);
        worker.admit("user:late", T + 1_000).await.unwrap();
        assert_eq!(
            worker.clean().len(),
            1,
            "the stale keys went when the next one came"
        );
    }
}
