//! What was revoked lately: tokens revoked and users disabled, so that feed tokens
//! minted with them stop opening feeds and the feeds they opened close, within
//! seconds, in every api process.
//!
//! A bearer token is looked up in the database, or found in the process's
//! [`TokenCache`](crate::token_cache::TokenCache), which checks every hit against this
//! set (a revoked one is refused at once here, within seconds elsewhere); a feed token
//! is stateless (an HMAC, `crate::feed_token`) and a feed stays open for as long as its
//! turn runs. Each api process therefore keeps the
//! ids revoked or disabled in the last feed-token lifetime, read from the database
//! every [`POLL_EVERY`] (two indexed reads, `tokens::revoked_since`) and noted at once
//! when the revocation happened in this process. A feed token whose minting token or
//! user is in the set opens nothing; an open feed watches the set and ends when its
//! credential lands in it (the client's `EventSource` reconnects and gets 401).

use std::{
    collections::HashMap,
    sync::{Arc, RwLock},
    time::Duration,
};

use chrono::{DateTime, Utc};
use parley_entity::query::tokens::{self, Revoked};
use sea_orm::DatabaseConnection;
use tokio::sync::watch;
use uuid::Uuid;

use crate::identity::Credential;

/// How often each api process reads what was revoked.
pub const POLL_EVERY: Duration = Duration::from_secs(2);

/// Token and user ids revoked or disabled lately, each with when it was seen.
#[derive(Debug)]
pub struct Revocations {
    recent: RwLock<Recent>,
    /// Bumped whenever the set grows; open feeds watch it.
    changed: watch::Sender<u64>,
    /// How long an id is kept: a feed token's lifetime.
    keep: chrono::Duration,
}

#[derive(Debug, Default)]
struct Recent {
    tokens: HashMap<Uuid, DateTime<Utc>>,
    users: HashMap<Uuid, DateTime<Utc>>,
}

impl Revocations {
    /// Keeps ids for `keep` (the feed tokens' time to live).
    pub fn new(keep: Duration) -> Arc<Self> {
        Arc::new(Self {
            recent: RwLock::default(),
            changed: watch::Sender::new(0),
            keep: chrono::Duration::from_std(keep).unwrap_or(chrono::Duration::minutes(10)),
        })
    }

    /// Whether `token_id` was revoked or `user_id` disabled.
    pub fn is_revoked(&self, token_id: Uuid, user_id: Uuid) -> bool {
        let recent = self.recent.read().unwrap_or_else(|e| e.into_inner());
        recent.tokens.contains_key(&token_id) || recent.users.contains_key(&user_id)
    }

    /// Resolves once `credential` is revoked (never, if it is not).
    pub fn revoked(
        self: &Arc<Self>,
        credential: Credential,
    ) -> impl Future<Output = ()> + Send + 'static {
        let this = self.clone();
        let mut changes = self.changed.subscribe();
        async move {
            loop {
                if this.is_revoked(credential.token_id, credential.user_id) {
                    return;
                }
                if changes.changed().await.is_err() {
                    std::future::pending::<()>().await;
                }
            }
        }
    }

    /// A watch that changes whenever the set grows (the feeds' pulse follows it).
    pub fn changes(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }

    /// Notes ids revoked at `at` (this process's own revocations, or a poll's).
    pub fn note(&self, revoked: &Revoked, at: DateTime<Utc>) {
        let mut grew = false;
        {
            let mut recent = self.recent.write().unwrap_or_else(|e| e.into_inner());
            for id in &revoked.tokens {
                grew |= recent.tokens.insert(*id, at).is_none();
            }
            for id in &revoked.users {
                grew |= recent.users.insert(*id, at).is_none();
            }
            let horizon = at - self.keep;
            recent.tokens.retain(|_, seen| *seen >= horizon);
            recent.users.retain(|_, seen| *seen >= horizon);
        }
        if grew {
            self.changed.send_modify(|generation| *generation += 1);
        }
    }

    /// Reads what was revoked every [`POLL_EVERY`] for as long as the process runs,
    /// starting a feed-token lifetime back.
    pub fn spawn_poller(self: &Arc<Self>, db: DatabaseConnection) {
        let this = self.clone();
        tokio::spawn(async move {
            let mut since = Utc::now() - this.keep;
            let mut every = tokio::time::interval(POLL_EVERY);
            every.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            loop {
                every.tick().await;
                match tokens::revoked_since(&db, since).await {
                    Ok(revoked) => {
                        // The next read starts at the latest time seen (>=: a
                        // revocation in the same instant is read again, and is no news).
                        if let Some(latest) = revoked.latest {
                            since = since.max(latest);
                        }
                        this.note(&revoked, Utc::now());
                    }
                    Err(err) => tracing::warn!(error = %err, "cannot read revoked tokens"),
                }
            }
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_watched_credential_ends_when_revoked() {
        let revocations = Revocations::new(Duration::from_secs(600));
        let credential = Credential {
            user_id: Uuid::now_v7(),
            token_id: Uuid::now_v7(),
        };
        let other = Revoked {
            tokens: vec![Uuid::now_v7()],
            ..Revoked::default()
        };
        let watched = tokio::spawn(revocations.revoked(credential));
        revocations.note(&other, Utc::now());
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!watched.is_finished(), "another token's revocation");
        let mine = Revoked {
            users: vec![credential.user_id],
            ..Revoked::default()
        };
        revocations.note(&mine, Utc::now());
        tokio::time::timeout(Duration::from_secs(1), watched)
            .await
            .expect("the user's disabling ends the watch")
            .unwrap();
        assert!(revocations.is_revoked(Uuid::now_v7(), credential.user_id));
        // Kept for the feed tokens' lifetime only.
        revocations.note(
            &Revoked::default(),
            Utc::now() + chrono::Duration::seconds(601),
        );
        assert!(!revocations.is_revoked(Uuid::now_v7(), credential.user_id));
    }
}
