//! Failed authentications counted per client address, for the gate (`crate::gate`):
//! past `http.auth_failures_per_minute` in a minute an address is held until the minute
//! is over. The client's address is the connection's, or the `X-Forwarded-For` entry
//! that `http.trusted_proxy_hops` proxies in front vouch for; IPv6 addresses count by
//! their /64, what one host usually holds.
//!
//! The counts are kept per api process (a few dozen bytes per address seen failing in
//! the last minute, bounded).

use std::{
    collections::HashMap,
    net::IpAddr,
    sync::Mutex,
    time::{Duration, Instant},
};

use poem::{Request, web::RemoteAddr};

/// How long failures count.
const WINDOW: Duration = Duration::from_secs(60);
/// The most addresses tracked at once; beyond it new addresses are not counted (the
/// map is swept of ended windows first).
const MAX_TRACKED: usize = 1 << 20;

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
