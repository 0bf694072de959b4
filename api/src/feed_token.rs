//! Feed tokens: short-lived credentials scoped to one feed — one prompt's events, or
//! the user's own feed.
//!
//! A browser's `EventSource` cannot send an `Authorization` header, so a client mints a
//! feed token with its bearer token (`POST /v1/prompts/{id}/feed-token`, or `POST
//! /v1/feed/token` for the user feed) and passes it as `?access_token=` to `GET
//! /v1/prompts/{id}/events` (or `GET /v1/feed`). The token is stateless: the prompt (nil
//! for the user feed), the user, the API token it was minted with and the expiry,
//! signed with HMAC-SHA256 under a key every api process shares (kept in the database,
//! see `parley_entity::query::secrets`). The two scopes are signed under different
//! contexts, so a prompt's token never verifies as a user feed's or the other way
//! round. A token opens nothing but its one feed, for its owner, until it expires or its
//! API token is revoked (or its user disabled: `crate::revocations`); it is never
//! logged (request logs carry the path, not the query).

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use chrono::{DateTime, Duration, Utc};
use hmac::{Hmac, Mac};
use sha2::Sha256;
use uuid::Uuid;

const PREFIX: &str = "pft_";
const CONTEXT: &[u8] = b"parley/feed-token/v2";
const USER_CONTEXT: &[u8] = b"parley/user-feed-token/v1";
const PAYLOAD_LEN: usize = 16 + 16 + 16 + 8;
const MAC_LEN: usize = 32;

/// The right a valid feed token grants: reading the feed of its `scope` as `user_id`,
/// for as long as `token_id` (the API token that minted it) is not revoked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FeedGrant {
    pub scope: FeedScope,
    pub user_id: Uuid,
    pub token_id: Uuid,
}

/// Which feed a token opens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FeedScope {
    /// One prompt's events.
    Prompt(Uuid),
    /// The user's own feed (`GET /v1/feed`).
    User,
}

impl FeedScope {
    fn context(self) -> &'static [u8] {
        match self {
            Self::Prompt(_) => CONTEXT,
            Self::User => USER_CONTEXT,
        }
    }

    fn prompt_id(self) -> Uuid {
        match self {
            Self::Prompt(prompt_id) => prompt_id,
            Self::User => Uuid::nil(),
        }
    }
}

/// Mints and checks feed tokens.
#[derive(Clone)]
pub struct FeedTokens {
    key: Vec<u8>,
    ttl: Duration,
}

impl std::fmt::Debug for FeedTokens {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FeedTokens")
            .field("ttl", &self.ttl)
            .finish_non_exhaustive()
    }
}

impl FeedTokens {
    pub fn new(key: Vec<u8>, ttl: std::time::Duration) -> Self {
        Self {
            key,
            ttl: Duration::from_std(ttl).unwrap_or(Duration::minutes(10)),
        }
    }

    fn mac(&self, context: &[u8], payload: &[u8]) -> Hmac<Sha256> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.key).expect("HMAC takes any key");
        mac.update(context);
        mac.update(payload);
        mac
    }

    /// A token for `grant`, valid from `now` for the configured time to live.
    pub fn mint(&self, grant: FeedGrant, now: DateTime<Utc>) -> (String, DateTime<Utc>) {
        let expires_at = now + self.ttl;
        let mut bytes = Vec::with_capacity(PAYLOAD_LEN + MAC_LEN);
        bytes.extend_from_slice(grant.scope.prompt_id().as_bytes());
        bytes.extend_from_slice(grant.user_id.as_bytes());
        bytes.extend_from_slice(grant.token_id.as_bytes());
        bytes.extend_from_slice(&expires_at.timestamp().to_be_bytes());
        let tag = self
            .mac(grant.scope.context(), &bytes)
            .finalize()
            .into_bytes();
        bytes.extend_from_slice(&tag);
        (
            format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes)),
            expires_at,
        )
    }

    /// The grant of a token this deployment minted and that has not expired.
    pub fn verify(&self, token: &str, now: DateTime<Utc>) -> Option<FeedGrant> {
        let bytes = URL_SAFE_NO_PAD.decode(token.strip_prefix(PREFIX)?).ok()?;
        if bytes.len() != PAYLOAD_LEN + MAC_LEN {
            return None;
        }
        let (payload, tag) = bytes.split_at(PAYLOAD_LEN);
        let prompt_id = Uuid::from_slice(&payload[..16]).ok()?;
        let scope = if self.mac(CONTEXT, payload).verify_slice(tag).is_ok() {
            FeedScope::Prompt(prompt_id)
        } else {
            self.mac(USER_CONTEXT, payload).verify_slice(tag).ok()?;
            FeedScope::User
        };
        let expires = i64::from_be_bytes(payload[48..56].try_into().ok()?);
        if now.timestamp() >= expires {
            return None;
        }
        Some(FeedGrant {
            scope,
            user_id: Uuid::from_slice(&payload[16..32]).ok()?,
            token_id: Uuid::from_slice(&payload[32..48]).ok()?,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(key: &[u8]) -> FeedTokens {
        FeedTokens::new(key.to_vec(), std::time::Duration::from_secs(600))
    }

    #[test]
    fn a_token_grants_its_prompt_until_it_expires() {
        let grant = FeedGrant {
            scope: FeedScope::Prompt(Uuid::now_v7()),
            user_id: Uuid::now_v7(),
            token_id: Uuid::now_v7(),
        };
        let now = Utc::now();
        let (token, expires_at) = tokens(b"k1").mint(grant, now);
        assert!(token.starts_with(PREFIX));
        assert_eq!(expires_at, now + Duration::seconds(600));
        assert_eq!(tokens(b"k1").verify(&token, now), Some(grant));
        assert_eq!(tokens(b"k1").verify(&token, expires_at), None, "expired");
        assert_eq!(tokens(b"k2").verify(&token, now), None, "another key");
    }

    #[test]
    fn tampered_or_foreign_tokens_are_refused() {
        let grant = FeedGrant {
            scope: FeedScope::Prompt(Uuid::now_v7()),
            user_id: Uuid::now_v7(),
            token_id: Uuid::now_v7(),
        };
        let now = Utc::now();
        let (token, _) = tokens(b"k").mint(grant, now);
        let mut bytes = URL_SAFE_NO_PAD.decode(&token[PREFIX.len()..]).unwrap();
        bytes[0] ^= 1;
        let forged = format!("{PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
        for bad in [
            forged.as_str(),
            "pft_",
            "prl_abc",
            "",
            &token[..token.len() - 2],
        ] {
            assert_eq!(tokens(b"k").verify(bad, now), None, "{bad}");
        }
    }

    #[test]
    fn a_user_feed_token_and_a_prompt_token_keep_their_scopes() {
        let (user_id, token_id) = (Uuid::now_v7(), Uuid::now_v7());
        let user = FeedGrant {
            scope: FeedScope::User,
            user_id,
            token_id,
        };
        let now = Utc::now();
        let (token, _) = tokens(b"k").mint(user, now);
        assert_eq!(tokens(b"k").verify(&token, now), Some(user));
        // The nil prompt of a user token is no prompt scope: the MAC tells them apart.
        let nil_prompt = FeedGrant {
            scope: FeedScope::Prompt(Uuid::nil()),
            ..user
        };
        let (prompt_token, _) = tokens(b"k").mint(nil_prompt, now);
        assert_ne!(prompt_token, token);
        assert_eq!(tokens(b"k").verify(&prompt_token, now), Some(nil_prompt));
    }
}
