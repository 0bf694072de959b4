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
//! The counts are kept per api process (a few dozen bytes per address seen failing in
//! the last minute, bounded); with several api processes an address gets the limit at
//! each of them.

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

use parley_protocol::error::{Error, ErrorCode};
use poem::{Request, web::RemoteAddr};

use crate::{auth::Caller, error::Problem, feed_token::FeedGrant, spec::Security, state::AppState};

/// How long failures count.
const WINDOW: Duration = Duration::from_secs(60);
/// The most addresses tracked at once; beyond it new addresses are not counted (the
/// map is swept of ended windows first).
const MAX_TRACKED: usize = 1 << 20;

/// Who a request authenticated as, kept in its extensions for the handler.
#[derive(Debug, Clone)]
pub enum Authenticated {
    Bearer(Caller),
    FeedToken(FeedGrant),
}

/// Failed authentications per client address in the current minute.
#[derive(Debug)]
pub struct Throttle {
    limit: u32,
    windows: Mutex<HashMap<IpAddr, (Instant, u32)>>,
}

impl Throttle {
    /// At most `limit` failures a minute per address; 0: no limit.
    pub fn new(limit: u32) -> Self {
        Self {
            limit,
            windows: Mutex::new(HashMap::new()),
        }
    }

    /// `Err(seconds)` while `client` is over its limit: when it may try again.
    pub fn check(&self, client: IpAddr, now: Instant) -> Result<(), u64> {
        if self.limit == 0 {
            return Ok(());
        }
        let windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        match windows.get(&client) {
            Some((started, failures)) if *failures >= self.limit => {
                let left = WINDOW.saturating_sub(now.duration_since(*started));
                if left.is_zero() {
                    Ok(())
                } else {
                    Err(left.as_secs().max(1))
                }
            }
            _ => Ok(()),
        }
    }

    /// Counts a failed authentication of `client`.
    pub fn failed(&self, client: IpAddr, now: Instant) {
        if self.limit == 0 {
            return;
        }
        let mut windows = self.windows.lock().unwrap_or_else(|e| e.into_inner());
        if windows.len() >= MAX_TRACKED && !windows.contains_key(&client) {
            windows.retain(|_, (started, _)| now.duration_since(*started) < WINDOW);
            if windows.len() >= MAX_TRACKED {
                return;
            }
        }
        let entry = windows.entry(client).or_insert((now, 0));
        if now.duration_since(entry.0) >= WINDOW {
            *entry = (now, 0);
        }
        entry.1 = entry.1.saturating_add(1);
    }
}

/// The address failures count against (see [`client_of`]).
pub fn client_address(req: &Request, hops: u8) -> Option<IpAddr> {
    let socket = match req.remote_addr() {
        RemoteAddr(poem::Addr::SocketAddr(addr)) => Some(addr.ip()),
        _ => None,
    };
    client_of(socket, req.header("x-forwarded-for"), hops)
}

/// The connection's address, or the `X-Forwarded-For` entry `hops` trusted proxies
/// vouch for (the `hops`-th from the right); an IPv6 address as its /64.
fn client_of(socket: Option<IpAddr>, forwarded_for: Option<&str>, hops: u8) -> Option<IpAddr> {
    let forwarded = (hops > 0)
        .then_some(forwarded_for)
        .flatten()
        .and_then(|list| {
            let entries: Vec<&str> = list.split(',').map(str::trim).collect();
            let at = entries.len().checked_sub(usize::from(hops))?;
            entries[at].parse::<IpAddr>().ok()
        });
    forwarded.or(socket).map(|ip| match ip {
        IpAddr::V6(v6) => {
            let mut octets = v6.octets();
            octets[8..].fill(0);
            IpAddr::from(octets)
        }
        v4 => v4,
    })
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_over_its_limit_waits_out_the_minute() {
        let throttle = Throttle::new(3);
        let (a, b): (IpAddr, IpAddr) = ("10.0.0.1".parse().unwrap(), "10.0.0.2".parse().unwrap());
        let t0 = Instant::now();
        for _ in 0..3 {
            assert_eq!(throttle.check(a, t0), Ok(()));
            throttle.failed(a, t0);
        }
        assert_eq!(throttle.check(a, t0), Err(60));
        assert_eq!(throttle.check(a, t0 + Duration::from_secs(45)), Err(15));
        assert_eq!(throttle.check(b, t0), Ok(()), "another address is not held");
        assert_eq!(throttle.check(a, t0 + WINDOW), Ok(()), "the minute is over");
        throttle.failed(a, t0 + WINDOW);
        assert_eq!(throttle.check(a, t0 + WINDOW), Ok(()), "a new window");
        assert_eq!(Throttle::new(0).check(a, t0), Ok(()), "0: no limit");
    }

    #[test]
    fn the_client_is_the_entry_the_trusted_proxies_vouch_for() {
        let socket = "192.0.2.9".parse().ok();
        let ip = |s: &str| Some(s.parse::<IpAddr>().unwrap());
        assert_eq!(client_of(socket, Some("1.1.1.1"), 0), ip("192.0.2.9"));
        assert_eq!(
            client_of(socket, Some("6.6.6.6, 1.1.1.1"), 1),
            ip("1.1.1.1")
        );
        assert_eq!(
            client_of(socket, Some("6.6.6.6, 1.1.1.1"), 2),
            ip("6.6.6.6")
        );
        assert_eq!(client_of(socket, Some("1.1.1.1"), 2), ip("192.0.2.9"));
        assert_eq!(client_of(socket, None, 1), ip("192.0.2.9"));
        assert_eq!(client_of(socket, Some("garbage"), 1), ip("192.0.2.9"));
        assert_eq!(
            client_of(socket, Some("2001:db8::1:2:3:4"), 1),
            ip("2001:db8::"),
            "an IPv6 address counts by its /64"
        );
    }
}
