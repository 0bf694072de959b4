//! Parley's outbound HTTP client: the one that reaches operators' endpoints — webhook
//! modules ([`crate::modules`]) and MCP servers over streamable HTTP (the worker's
//! `functions::mcp`).
//!
//! Those URLs come from configuration, but where a request lands is also up to the far
//! side: a redirect, or a name that resolves somewhere new. So every such request obeys
//! two rules, built into the one client both callers get from [`Outbound`]:
//!
//! * **Redirects** are followed at most [`MAX_REDIRECTS`] times, only to the origin of
//!   the URL asked for (scheme, host and port), and only when they are 307 or 308, which
//!   keep the method and body: a 301, 302 or 303 would turn the POST into a bodyless GET
//!   and lose the hook's context or the JSON-RPC message. Any other redirect fails the
//!   request with an error that says why (no cross-host hop ever carries the webhook's
//!   signature or the MCP session and bearer token elsewhere).
//! * **`outbound.deny_private_addresses`** ([`OutboundPolicy`]): no connection to an
//!   address that is not public ([`address::is_public`]: loopback, private, link-local
//!   with the cloud metadata address, CGNAT, …). Names are resolved by the guarded
//!   resolver ([`resolve`]), which drops such addresses and fails when none is left, on
//!   every connection (so a name that starts resolving inward later is still refused).
//!   A URL whose host is an IP literal is never resolved, so [`Outbound::check_url`]
//!   checks it before each request and the redirect policy checks each redirect target.
//!   Environment proxies are off then: through a proxy the resolver would only see the
//!   proxy's address, not the one the request reaches.

pub mod address;
mod resolve;

use std::{net::IpAddr, sync::Arc};

use reqwest::{StatusCode, Url, redirect};

/// The most redirects one request follows.
pub const MAX_REDIRECTS: usize = 5;

/// What outbound requests may reach (`[outbound]`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OutboundPolicy {
    /// Refuse loopback, private, link-local and other non-public addresses.
    pub deny_private_addresses: bool,
}

/// Why an outbound request was not made, or not followed where it pointed.
#[derive(Debug, thiserror::Error)]
pub enum OutboundError {
    #[error("building the outbound HTTP client: {0}")]
    Build(#[source] reqwest::Error),
    #[error("only http and https URLs are reached, not {scheme}:")]
    Scheme { scheme: String },
    #[error("{ip} is not a public address (outbound.deny_private_addresses refuses it)")]
    NotPublic { ip: IpAddr },
    #[error(
        "`{host}` resolves only to addresses that are not public ({addresses}; outbound.deny_private_addresses refuses them)"
    )]
    ResolvesNotPublic { host: String, addresses: String },
    #[error("resolving `{host}`: {source}")]
    Resolve {
        host: String,
        source: std::io::Error,
    },
    #[error("a redirect to another host ({to}) is not followed")]
    OtherHost { to: String },
    #[error(
        "a {status} redirect is not followed: only 307 and 308 keep the request's method and body"
    )]
    RedirectStatus { status: u16 },
    #[error("more than {MAX_REDIRECTS} redirects")]
    TooManyRedirects,
}

/// The outbound client and the policy it enforces; cheap to clone (one connection pool).
#[derive(Debug, Clone)]
pub struct Outbound {
    client: reqwest::Client,
    policy: OutboundPolicy,
}

impl Outbound {
    /// A client with a connection pool (webhooks: one request per hook run).
    pub fn new(policy: OutboundPolicy) -> Result<Self, OutboundError> {
        Self::build(policy, crate::tls::http_client())
    }

    /// A client that keeps no idle connection, as rmcp's own streamable HTTP client does:
    /// reusing a connection whose SSE body was not read to the end stalls on TCP's
    /// delayed ACK.
    pub fn without_idle_pool(policy: OutboundPolicy) -> Result<Self, OutboundError> {
        Self::build(policy, crate::tls::http_client().pool_max_idle_per_host(0))
    }

    fn build(
        policy: OutboundPolicy,
        builder: reqwest::ClientBuilder,
    ) -> Result<Self, OutboundError> {
        let mut builder =
            builder.redirect(redirect::Policy::custom(
                move |attempt| match judge_redirect(
                    policy,
                    attempt.status(),
                    attempt.url(),
                    attempt.previous(),
                ) {
                    Ok(()) => attempt.follow(),
                    Err(refused) => attempt.error(refused),
                },
            ));
        if policy.deny_private_addresses {
            builder = builder
                .no_proxy()
                .dns_resolver(Arc::new(resolve::PublicOnly));
        }
        let client = builder.build().map_err(OutboundError::Build)?;
        Ok(Self { client, policy })
    }

    /// The client; send only to URLs [`check_url`](Self::check_url) passed.
    pub fn client(&self) -> &reqwest::Client {
        &self.client
    }

    pub fn policy(&self) -> OutboundPolicy {
        self.policy
    }

    /// What must hold of a URL before a request to it: http or https, and, when private
    /// addresses are denied, a host that is a public address if it is an IP literal
    /// (names are checked by the resolver when the connection is made).
    pub fn check_url(&self, url: &Url) -> Result<(), OutboundError> {
        check_url(self.policy, url)
    }
}

fn check_url(policy: OutboundPolicy, url: &Url) -> Result<(), OutboundError> {
    if !matches!(url.scheme(), "http" | "https") {
        return Err(OutboundError::Scheme {
            scheme: url.scheme().to_owned(),
        });
    }
    if policy.deny_private_addresses
        && let Some(ip) = ip_literal(url)
        && !address::is_public(ip)
    {
        return Err(OutboundError::NotPublic { ip });
    }
    Ok(())
}

/// The host of `url` when it is an IP address (URLs normalize `127.1` and `2130706433`
/// to `127.0.0.1`; IPv6 comes bracketed).
fn ip_literal(url: &Url) -> Option<IpAddr> {
    let host = url.host_str()?;
    let host = host
        .strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host);
    host.parse().ok()
}

/// Whether a redirect to `next` (answered with `status`, after the requests to
/// `previous`, the first being the URL asked for) is followed.
fn judge_redirect(
    policy: OutboundPolicy,
    status: StatusCode,
    next: &Url,
    previous: &[Url],
) -> Result<(), OutboundError> {
    // `previous` holds every URL requested so far: following makes it one more hop.
    if previous.len() > MAX_REDIRECTS {
        return Err(OutboundError::TooManyRedirects);
    }
    let same_origin = previous
        .first()
        .is_some_and(|first| first.origin() == next.origin());
    if !same_origin {
        // The origin only: a path or query may carry credentials.
        return Err(OutboundError::OtherHost {
            to: next.origin().ascii_serialization(),
        });
    }
    if !matches!(
        status,
        StatusCode::TEMPORARY_REDIRECT | StatusCode::PERMANENT_REDIRECT
    ) {
        return Err(OutboundError::RedirectStatus {
            status: status.as_u16(),
        });
    }
    check_url(policy, next)
}

/// An error with its causes, for a log line or a module's error: reqwest's own message
/// ("error sending request for url (…)") says little without them.
pub fn describe(err: &(dyn std::error::Error + 'static)) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let more = cause.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests;
