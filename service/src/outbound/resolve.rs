//! The guarded resolver of `outbound.deny_private_addresses`: the system's resolver
//! (`getaddrinfo`, as reqwest's default), with every address that is not public dropped.
//!
//! It runs for each new connection, so the check is made on the addresses the
//! connection will use — a name whose records change to an inward address after
//! start-up (DNS rebinding) is refused then. A name with public and non-public
//! addresses keeps the public ones; a name with none left fails the request.

use std::net::SocketAddr;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

use super::{OutboundError, address};

/// Resolves names to their public addresses only.
pub(super) struct PublicOnly;

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_owned();
        Box::pin(async move {
            let found: Vec<SocketAddr> = tokio::net::lookup_host((host.as_str(), 0))
                .await
                .map_err(|source| OutboundError::Resolve {
                    host: host.clone(),
                    source,
                })?
                .collect();
            if found.is_empty() {
                let source = std::io::Error::other("no address");
                return Err(OutboundError::Resolve { host, source }.into());
            }
            let (public, refused): (Vec<SocketAddr>, Vec<SocketAddr>) = found
                .into_iter()
                .partition(|addr| address::is_public(addr.ip()));
            if public.is_empty() {
                let addresses: Vec<String> = refused.iter().map(|a| a.ip().to_string()).collect();
                return Err(OutboundError::ResolvesNotPublic {
                    host,
                    addresses: addresses.join(", "),
                }
                .into());
            }
            if !refused.is_empty() {
                tracing::debug!(%host, refused = refused.len(), "dropped addresses that are not public");
            }
            Ok(Box::new(public.into_iter()) as Addrs)
        })
    }
}
