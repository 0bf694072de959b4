//! The HTTP edge (`[http]`): which browser origins may call the API (CORS), where
//! `/metrics` is served and who may read it, and how failed authentication is
//! throttled; and what outbound calls may reach (`[outbound]`).

use std::net::SocketAddr;

use secrecy::{ExposeSecret, SecretString};
use serde::{Deserialize, Serialize};

use super::mask;

/// `[http]`.
#[derive(Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct HttpSettings {
    /// Origins (`https://app.example.com`) whose pages may call the API (CORS). Empty
    /// (the default): none. `["*"]`: any origin, and then never with credentials.
    pub cors_origins: Vec<String>,
    /// Answer CORS requests with `Access-Control-Allow-Credentials: true` (cookies or
    /// HTTP authentication; Parley's bearer tokens do not need it). Not with `*`.
    pub cors_credentials: bool,
    /// How long a browser may reuse a preflight answer, in seconds.
    pub cors_max_age_s: u32,
    /// Serve `/metrics` on this address instead of the API's port (the API's port then
    /// answers 404 there).
    pub metrics_listen: Option<SocketAddr>,
    /// The bearer token `/metrics` on the API's port requires. Unset (and no
    /// `metrics_listen`): `/metrics` is open, for a network where only Prometheus
    /// reaches the port.
    #[serde(serialize_with = "mask::secret_opt")]
    pub metrics_token: Option<SecretString>,
    /// Failed authentications one client address may make in a minute; more are
    /// answered 429 until the minute has passed. 0: no limit.
    pub auth_failures_per_minute: u32,
    /// How many proxies in front of Parley append to `X-Forwarded-For`: the client's
    /// address is the entry that many from the right. 0: the connection's address.
    pub trusted_proxy_hops: u8,
}

impl Default for HttpSettings {
    fn default() -> Self {
        Self {
            cors_origins: Vec::new(),
            cors_credentials: false,
            cors_max_age_s: 600,
            metrics_listen: None,
            metrics_token: None,
            auth_failures_per_minute: 20,
            trusted_proxy_hops: 0,
        }
    }
}

impl HttpSettings {
    pub(super) fn validate(&self) -> anyhow::Result<()> {
        let any = self.cors_origins.iter().any(|o| o == "*");
        if any && self.cors_origins.len() > 1 {
            anyhow::bail!("invalid setting `http.cors_origins`: `*` stands alone");
        }
        if any && self.cors_credentials {
            anyhow::bail!(
                "invalid setting `http.cors_credentials`: browsers refuse credentials with `*` in `http.cors_origins`; list the origins"
            );
        }
        for origin in self.cors_origins.iter().filter(|o| *o != "*") {
            if !is_origin(origin) {
                anyhow::bail!(
                    "invalid setting `http.cors_origins`: `{origin}` is not an origin (scheme://host[:port], no path)"
                );
            }
        }
        if self
            .metrics_token
            .as_ref()
            .is_some_and(|t| t.expose_secret().len() < 16)
        {
            anyhow::bail!("invalid setting `http.metrics_token`: must be at least 16 characters");
        }
        Ok(())
    }
}

/// `scheme://host[:port]` as a browser sends it in `Origin`.
fn is_origin(origin: &str) -> bool {
    let Some((scheme, host)) = origin.split_once("://") else {
        return false;
    };
    matches!(scheme, "http" | "https")
        && !host.is_empty()
        && !host.contains(['/', '?', '#', '@', ' '])
}

/// `[outbound]`: what webhook modules and MCP servers may be reached at.
#[derive(Debug, Default, Deserialize, Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutboundSettings {
    /// Refuse to connect to private, loopback, link-local and other non-public
    /// addresses (after name resolution, and for every redirect). Off by default, so
    /// a webhook or MCP server on the same machine or network works out of the box.
    pub deny_private_addresses: bool,
}

#[cfg(test)]
mod tests {
    use super::is_origin;

    #[test]
    fn origins_are_scheme_host_and_port() {
        for good in ["https://app.example.com", "http://127.0.0.1:5173"] {
            assert!(is_origin(good), "{good}");
        }
        for bad in [
            "app.example.com",
            "https://a.example/",
            "ftp://x",
            "https://",
            "*.example",
        ] {
            assert!(!is_origin(bad), "{bad}");
        }
    }
}
