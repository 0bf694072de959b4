//! Bearer-token authentication and the access checks every handler uses.
//!
//! Tokens are opaque: `prl_` followed by 32 random bytes in base64url. Only the SHA-256
//! of a token is stored (a fast hash is enough for 256 bits of entropy); the token itself
//! is shown once when created and never logged. A token may be revoked or expire; each
//! use refreshes `last_used_at` (at most once a minute, to keep reads cheap). Who a
//! request authenticates as is `crate::identity`'s.

use base64::{Engine, engine::general_purpose::URL_SAFE_NO_PAD};
use parley_entity::query::tokens;
use parley_protocol::error::{Error, Result};
use poem::{Request, RequestBody};
use poem_openapi::{
    ApiExtractor, ApiExtractorType, ExtractParamOptions, SecurityScheme,
    auth::{ApiKey, Bearer},
    registry::Registry,
};
use rand::RngCore;
use sha2::{Digest, Sha256};
use uuid::Uuid;

use crate::{
    error::{Problem, problem_response},
    feed_token::{FeedGrant, FeedScope},
    identity::{Authenticated, Caller, Credential},
    state::AppState,
};

const TOKEN_PREFIX: &str = "prl_";

/// A freshly minted token: the secret (shown once) and what is stored.
pub struct NewToken {
    pub secret: String,
    pub hash: String,
    pub display_prefix: String,
}

/// Mints a new random token.
pub fn mint_token() -> NewToken {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    let secret = format!("{TOKEN_PREFIX}{}", URL_SAFE_NO_PAD.encode(bytes));
    from_secret(secret)
}

/// Wraps a secret chosen elsewhere (the bootstrap token of automation).
pub fn from_secret(secret: String) -> NewToken {
    NewToken {
        hash: hash_token(&secret),
        display_prefix: secret.chars().take(TOKEN_PREFIX.len() + 6).collect(),
        secret,
    }
}

/// The stored form of a token.
pub fn hash_token(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// `Authorization: Bearer <token>` with an opaque Parley API token.
#[derive(SecurityScheme)]
#[oai(
    rename = "bearer",
    ty = "bearer",
    bearer_format = "opaque",
    checker = "check_bearer"
)]
pub struct BearerAuth(pub Caller);

fn error_response(err: Error) -> poem::Error {
    poem::Error::from_response(problem_response(Problem::from(err)))
}

fn app_state(req: &Request) -> poem::Result<&AppState> {
    req.data::<AppState>().ok_or_else(|| {
        error_response(Error::internal(
            "authenticating a request",
            "application state is missing",
        ))
    })
}

async fn check_bearer(req: &Request, bearer: Bearer) -> poem::Result<Caller> {
    // The gate authenticated the request before its body was read (`crate::gate`).
    if let Some(Authenticated::Bearer(caller)) = req.extensions().get::<Authenticated>() {
        return Ok(caller.clone());
    }
    let state = app_state(req)?;
    match authenticate_bearer(state, &bearer.token).await {
        Ok(Some(caller)) => Ok(caller),
        Ok(None) => Err(poem_openapi::error::AuthorizationError.into()),
        Err(err) => Err(error_response(err)),
    }
}

/// Who the API token `secret` belongs to: from the process's [`TokenCache`] when it
/// authenticated lately and nothing since says otherwise, else from the database (then
/// kept). `None`: unknown, revoked, expired, or its user disabled.
///
/// [`TokenCache`]: crate::token_cache::TokenCache
pub async fn authenticate_bearer(state: &AppState, secret: &str) -> Result<Option<Caller>> {
    let hash = hash_token(secret);
    let now = chrono::Utc::now();
    if let Some(caller) = state.token_cache.get(&hash, &state.revocations, now) {
        return Ok(Some(caller));
    }
    let Some(owner) = tokens::authenticate(&state.db, &hash, now).await? else {
        return Ok(None);
    };
    let expires_at = owner.expires_at;
    let caller = Caller::from(owner);
    state.token_cache.put(hash, caller.clone(), expires_at);
    Ok(Some(caller))
}

/// The bearer scheme for administrators: 401 without valid credentials, then 403 for
/// anyone who is not an admin — before the request body is read, so a non-admin never
/// sees an admin schema's validation messages whatever the body.
pub struct AdminAuth(pub Caller);

impl<'a> ApiExtractor<'a> for AdminAuth {
    const TYPES: &'static [ApiExtractorType] = &[ApiExtractorType::SecurityScheme];
    type ParamType = ();
    type ParamRawType = ();

    fn register(registry: &mut Registry) {
        <BearerAuth as ApiExtractor>::register(registry);
    }

    fn security_schemes() -> Vec<&'static str> {
        <BearerAuth as ApiExtractor>::security_schemes()
    }

    async fn from_request(
        req: &'a Request,
        body: &mut RequestBody,
        param_opts: ExtractParamOptions<Self::ParamType>,
    ) -> poem::Result<Self> {
        let BearerAuth(caller) = BearerAuth::from_request(req, body, param_opts).await?;
        if caller.is_admin() {
            Ok(Self(caller))
        } else {
            Err(error_response(Error::forbidden(
                "this route is for administrators",
            )))
        }
    }
}

/// `?access_token=` with a feed token from `POST /v1/prompts/{id}/feed-token` (or `POST
/// /v1/feed/token`): what a browser's `EventSource`, which cannot send headers, uses to
/// follow one prompt's events (or the user's feed).
#[derive(SecurityScheme)]
#[oai(
    rename = "feed_token",
    ty = "api_key",
    key_in = "query",
    key_name = "access_token",
    checker = "check_feed_token"
)]
pub struct FeedTokenAuth(pub FeedGrant);

async fn check_feed_token(req: &Request, key: ApiKey) -> poem::Result<FeedGrant> {
    if let Some(Authenticated::FeedToken(grant)) = req.extensions().get::<Authenticated>() {
        return Ok(*grant);
    }
    let state = app_state(req)?;
    state
        .feed_tokens
        .verify(&key.key, chrono::Utc::now())
        .filter(|grant| !state.revocations.is_revoked(grant.token_id, grant.user_id))
        .ok_or_else(|| poem_openapi::error::AuthorizationError.into())
}

/// Who may follow a prompt's feed: a bearer token, or a feed token for that prompt.
#[derive(SecurityScheme)]
pub enum FeedAuth {
    Bearer(BearerAuth),
    FeedToken(FeedTokenAuth),
}

impl FeedAuth {
    /// The credential of the reader of `prompt_id`'s feed; a feed token for another
    /// prompt answers 404 like a prompt that does not exist.
    pub fn reader_of(&self, prompt_id: Uuid) -> Result<Credential> {
        match self {
            Self::Bearer(bearer) => Ok(bearer.0.credential()),
            Self::FeedToken(token) if token.0.scope == FeedScope::Prompt(prompt_id) => {
                Ok(Credential {
                    user_id: token.0.user_id,
                    token_id: token.0.token_id,
                })
            }
            Self::FeedToken(_) => Err(Error::not_found("prompt")),
        }
    }

    /// The credential of the reader of their own user feed; a prompt's feed token
    /// opens no user feed (401).
    pub fn reader_of_user_feed(&self) -> Result<Credential> {
        match self {
            Self::Bearer(bearer) => Ok(bearer.0.credential()),
            Self::FeedToken(token) if token.0.scope == FeedScope::User => Ok(Credential {
                user_id: token.0.user_id,
                token_id: token.0.token_id,
            }),
            Self::FeedToken(_) => Err(Error::Unauthenticated),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minted_tokens_are_unique_and_hash_stably() {
        let a = mint_token();
        let b = mint_token();
        assert_ne!(a.secret, b.secret);
        assert!(a.secret.starts_with(TOKEN_PREFIX));
        assert_eq!(a.secret.len(), TOKEN_PREFIX.len() + 43);
        assert_eq!(a.hash, hash_token(&a.secret));
        assert_ne!(a.hash, b.hash);
        assert!(!a.hash.contains(&a.secret));
        assert!(a.secret.starts_with(&a.display_prefix));
    }
}
