//! Bearer tokens authenticated lately, so that a client's next requests skip the
//! token's database read.
//!
//! A request with an API token reads the token and its user from the database (one
//! statement; with sqlx's ping of the connection it hands back, two round trips). A
//! chat client makes several requests a second with one token, and every turn starts
//! with that read before anything else. So each api process keeps what a token
//! authenticated as for `auth.token_cache_s` (5 s by default; 0: no cache), and while it
//! does:
//!
//! * a token revoked, or a user disabled, is refused at once by the process that did it
//!   and within [`POLL_EVERY`](crate::revocations::POLL_EVERY) by the others: every hit
//!   is checked against [`Revocations`], which each process reads from the database
//!   every two seconds (and which the feed tokens rely on already); a hit that is revoked
//!   goes back to the database, which decides;
//! * a token past its expiry is refused at once (its expiry is kept with it);
//! * a change of a user's role or permissions, or their deletion, is seen at once by the
//!   process that made it (it forgets the user's tokens) and by the others within the
//!   cache's lifetime.
//!
//! docs/decisions.md, "Bearer tokens are cached for seconds".

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::{identity::Caller, revocations::Revocations};

/// At most this many tokens are kept; a full cache takes no new ones until entries
/// lapse (each is one sweep away from lapsing).
const CAPACITY: usize = 100_000;

/// What each api process keeps of the tokens it authenticated lately.
#[derive(Debug)]
pub struct TokenCache {
    /// How long an entry is used; zero: nothing is kept.
    ttl: Duration,
    /// By the token's hash (the secret itself is never kept).
    entries: Mutex<HashMap<String, Entry>>,
}

#[derive(Debug, Clone)]
struct Entry {
    caller: Caller,
    /// When the token itself expires.
    expires_at: Option<DateTime<Utc>>,
    /// When this entry lapses.
    until: Instant,
}

impl TokenCache {
    /// A cache whose entries live `ttl` (zero: a cache that keeps nothing).
    pub fn new(ttl: Duration) -> Self {
        Self {
            ttl,
            entries: Mutex::default(),
        }
    }

    fn entries(&self) -> std::sync::MutexGuard<'_, HashMap<String, Entry>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Who the token with `hash` authenticated as, if that was lately and nothing since
    /// says otherwise: not expired, not revoked, its user not disabled.
    pub fn get(&self, hash: &str, revocations: &Revocations, now: DateTime<Utc>) -> Option<Caller> {
        if self.ttl.is_zero() {
            return None;
        }
        let mut entries = self.entries();
        let entry = entries.get(hash)?;
        let live = entry.until > Instant::now()
            && entry.expires_at.is_none_or(|at| at > now)
            && !revocations.is_revoked(entry.caller.token_id, entry.caller.user_id);
        if live {
            Some(entry.caller.clone())
        } else {
            entries.remove(hash);
            None
        }
    }

    /// Keeps what the token with `hash` authenticated as (read from the database just
    /// now), with the token's own expiry.
    pub fn put(&self, hash: String, caller: Caller, expires_at: Option<DateTime<Utc>>) {
        if self.ttl.is_zero() {
            return;
        }
        let now = Instant::now();
        let mut entries = self.entries();
        if entries.len() >= CAPACITY {
            entries.retain(|_, entry| entry.until > now);
            if entries.len() >= CAPACITY {
                return;
            }
        }
        let until = now + self.ttl;
        entries.insert(
            hash,
            Entry {
                caller,
                expires_at,
                until,
            },
        );
    }

    /// Forgets the tokens of `user_id` (their role, permissions or account changed).
    pub fn forget_user(&self, user_id: Uuid) {
        self.entries()
            .retain(|_, entry| entry.caller.user_id != user_id);
    }

    /// How many tokens are kept.
    pub fn len(&self) -> usize {
        self.entries().len()
    }

    /// Whether no token is kept.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use parley_entity::{enums::UserRole, query::tokens::Revoked};

    use super::*;

    fn caller() -> Caller {
        Caller {
            user_id: Uuid::now_v7(),
            role: UserRole::Student,
            permissions: vec![],
            token_id: Uuid::now_v7(),
        }
    }

    fn revocations() -> std::sync::Arc<Revocations> {
        Revocations::new(Duration::from_secs(600))
    }

    #[tokio::test]
    async fn a_token_is_kept_for_its_lifetime_and_no_longer() {
        let cache = TokenCache::new(Duration::from_millis(50));
        let revocations = revocations();
        let who = caller();
        assert!(cache.get("h", &revocations, Utc::now()).is_none());
        cache.put("h".into(), who.clone(), None);
        let hit = cache.get("h", &revocations, Utc::now()).expect("kept");
        assert_eq!((hit.user_id, hit.token_id), (who.user_id, who.token_id));
        assert!(cache.get("other", &revocations, Utc::now()).is_none());
        tokio::time::sleep(Duration::from_millis(60)).await;
        assert!(cache.get("h", &revocations, Utc::now()).is_none(), "lapsed");
        assert!(cache.is_empty(), "a lapsed entry is dropped when met");
    }

    #[test]
    fn revoked_expired_and_forgotten_tokens_are_not_served() {
        let cache = TokenCache::new(Duration::from_secs(60));
        let revocations = revocations();
        let now = Utc::now();

        let revoked = caller();
        cache.put("revoked".into(), revoked.clone(), None);
        let disabled = caller();
        cache.put("disabled".into(), disabled.clone(), None);
        revocations.note(
            &Revoked {
                tokens: vec![revoked.token_id],
                users: vec![disabled.user_id],
                latest: None,
            },
            now,
        );
        assert!(cache.get("revoked", &revocations, now).is_none());
        assert!(cache.get("disabled", &revocations, now).is_none());

        let expiring = caller();
        cache.put(
            "expiring".into(),
            expiring,
            Some(now + chrono::Duration::seconds(1)),
        );
        assert!(cache.get("expiring", &revocations, now).is_some());
        let later = now + chrono::Duration::seconds(2);
        assert!(cache.get("expiring", &revocations, later).is_none());

        let changed = caller();
        cache.put("changed".into(), changed.clone(), None);
        cache.forget_user(changed.user_id);
        assert!(cache.get("changed", &revocations, now).is_none());
        assert!(cache.is_empty());
    }

    #[test]
    fn a_zero_lifetime_keeps_nothing() {
        let cache = TokenCache::new(Duration::ZERO);
        cache.put("h".into(), caller(), None);
        assert!(cache.is_empty());
        assert!(cache.get("h", &revocations(), Utc::now()).is_none());
    }
}
