//! The gate: credentials are checked before a request's body is read, and failed
//! attempts are throttled per client address.
//!
//! An operation of the document that names a security scheme is authenticated here,
//! first: a request without valid credentials is answered 401 while its body is still
//! unread (an anonymous 10 MiB upload costs nothing but the headers), and the caller
//! found is kept in the request for the handler's own security extractor
//! (`crate::auth`), which then does no second lookup. Wrong credentials count against
//! the client's address: past `http.auth_failures_per_minute` in a minute, every
//! request from that address that needs credentials is answered 429 with
//! `Retry-After`, without looking at them (so guessing learns nothing and costs no
//! database read) until the minute is over. The client's address is the connection's,
//! or the `X-Forwarded-For` entry that `http.trusted_proxy_hops` proxies in front
//! vouch for; IPv6 addresses count by their /64, what one host usually holds.
//!
//! The counts are kept per api process ([`Throttle`], `crate::throttle`); with several
//! api processes an address gets the limit at each of them.

use std::time::Instant;

use parley_protocol::error::{Error, ErrorCode};
use poem::Request;

use crate::{
    error::Problem, identity::Authenticated, spec::Security, state::AppState,
    throttle::client_address,
};

/// The throttle the gate consults, built by whoever builds the state.
pub use crate::throttle::Throttle;

/// Authenticates a request to an operation that needs credentials (`security`),
/// before its body is read: `Ok` keeps the caller in the request; `Err` is the answer
/// (401 for missing or wrong credentials, 429 for an address over its limit).
pub async fn admit(req: &mut Request, state: &AppState, security: Security) -> Result<(), Problem> {
    let bearer = req
        .header("authorization")
        .and_then(|value| {
            let (scheme, token) = value.split_once(' ')?;
            scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
        })
        .map(str::to_owned);
    let feed_token = (security == Security::BearerOrFeedToken && bearer.is_none())
        .then(|| access_token(req))
        .flatten();
    if bearer.is_none() && feed_token.is_none() {
        // No credentials: no guess either; nothing to throttle.
        return Err(Problem::from(Error::Unauthenticated));
    }
    let client = client_address(req, state.edge.trusted_proxy_hops);
    let now = Instant::now();
    if let Some(client) = client
        && let Err(retry_after_s) = state.throttle.check(client, now)
    {
        count("throttled");
        let mut problem = Problem::new(
            ErrorCode::AuthThrottled,
            "too many failed authentications from this address; try again later",
        );
        problem.retry_after_s = Some(retry_after_s);
        return Err(problem);
    }
    let found = match (bearer, feed_token) {
        (Some(token), _) => crate::auth::authenticate_bearer(state, &token)
            .await
            .map_err(Problem::from)?
            .map(Authenticated::Bearer),
        (None, Some(token)) => state
            .feed_tokens
            .verify(&token, chrono::Utc::now())
            .filter(|grant| !state.revocations.is_revoked(grant.token_id, grant.user_id))
            .map(Authenticated::FeedToken),
        (None, None) => None,
    };
    match found {
        Some(authenticated) => {
            req.extensions_mut().insert(authenticated);
            Ok(())
        }
        None => {
            count("refused");
            if let Some(client) = client {
                state.throttle.failed(client, now);
            }
            Err(Problem::from(Error::Unauthenticated))
        }
    }
}

fn count(outcome: &'static str) {
    parley_runtime::metrics::metrics()
        .auth_failures
        .get_or_create(&parley_runtime::metrics::AuthFailureLabels { outcome })
        .inc();
}

/// The feed token of a request's query (`?access_token=`), percent-decoded.
fn access_token(req: &Request) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Query {
        access_token: Option<String>,
    }
    req.params::<Query>().ok()?.access_token
}
