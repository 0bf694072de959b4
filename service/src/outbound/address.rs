//! Which IP addresses are public: the test behind `outbound.deny_private_addresses`.
//!
//! An address is public when it is globally reachable unicast: not loopback, private
//! (RFC 1918, fc00::/7), link-local (169.254/16 — where cloud metadata services answer,
//! 169.254.169.254 — and fe80::/10), unspecified, broadcast, multicast, shared (CGNAT,
//! 100.64/10), documentation, benchmarking, reserved, or one of the IETF's other
//! special-purpose blocks. The list follows the IANA special-purpose address registries,
//! the way the standard library's `is_global` does; that method is not stable (Rust
//! 1.95), so the ranges std does not classify on stable are written out here.
//!
//! IPv6 addresses that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`,
//! IPv4-compatible `::a.b.c.d`, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`) are judged by
//! the IPv4 address they lead to: `::ffff:127.0.0.1` is loopback wherever it is written.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

/// Whether `ip` is a globally reachable unicast address.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => is_public_v6(v6),
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, c, d] = ip.octets();
    let special = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_broadcast()
        || ip.is_documentation()
        || ip.is_multicast()
        // 0.0.0.0/8: "this network".
        || a == 0
        // 100.64.0.0/10: shared address space (carrier-grade NAT).
        || (a == 100 && (b & 0xc0) == 64)
        // 192.0.0.0/24: IETF protocol assignments, but for the two global anycast
        // addresses .9 and .10.
        || (a == 192 && b == 0 && c == 0 && d != 9 && d != 10)
        // 198.18.0.0/15: benchmarking.
        || (a == 198 && (b & 0xfe) == 18)
        // 240.0.0.0/4: reserved (with 255.255.255.255, broadcast).
        || a >= 240;
    !special
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    if let Some(v4) = embedded_v4(ip) {
        return is_public_v4(v4);
    }
    let s = ip.segments();
    let special = ip.is_unspecified()
        || ip.is_loopback()
        || ip.is_multicast()
        || ip.is_unique_local()
        || ip.is_unicast_link_local()
        // fec0::/10: site-local (deprecated, still routed inside sites).
        || (s[0] & 0xffc0) == 0xfec0
        // 64:ff9b:1::/48: NAT64 for local use.
        || (s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1)
        // 100::/64: discard-only.
        || (s[0] == 0x100 && s[1] == 0 && s[2] == 0 && s[3] == 0)
        // 2001::/23: IETF protocol assignments (Teredo among them), but for the blocks
        // of it that are global.
        || (s[0] == 0x2001 && s[1] < 0x200 && !ietf_global(s))
        // 2001:db8::/32 and 3fff::/20: documentation.
        || (s[0] == 0x2001 && s[1] == 0xdb8)
        || (s[0] == 0x3fff && s[1] < 0x1000)
        // 5f00::/16: segment routing SIDs.
        || s[0] == 0x5f00
        // Outside 2000::/3 nothing is allocated as global unicast.
        || (s[0] & 0xe000) != 0x2000;
    !special
}

/// The global blocks inside 2001::/23: 2001:1::1, 2001:1::2, 2001:3::/32 (AMT),
/// 2001:4:112::/48 (AS112), 2001:20::/28 (ORCHIDv2), 2001:30::/28 (drone remote ID).
fn ietf_global(s: [u16; 8]) -> bool {
    let host =
        u128::from_be_bytes(Ipv6Addr::new(s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]).octets());
    let anycast = |last: u128| host == (0x2001_0001u128 << 96) | last;
    anycast(1)
        || anycast(2)
        || s[1] == 3
        || (s[1] == 4 && s[2] == 0x112)
        || (0x20..=0x3f).contains(&s[1])
}

/// The IPv4 address an IPv6 address leads to, when it carries one.
fn embedded_v4(ip: Ipv6Addr) -> Option<Ipv4Addr> {
    let s = ip.segments();
    let low = || Ipv4Addr::new((s[6] >> 8) as u8, s[6] as u8, (s[7] >> 8) as u8, s[7] as u8);
    if let Some(mapped) = ip.to_ipv4_mapped() {
        return Some(mapped);
    }
    // ::a.b.c.d (IPv4-compatible, deprecated); not :: and ::1, which are IPv6's own.
    if s[..6] == [0; 6] && !ip.is_unspecified() && !ip.is_loopback() {
        return Some(low());
    }
    // 64:ff9b::/96: the NAT64 well-known prefix translates to the low 32 bits.
    if s[..6] == [0x64, 0xff9b, 0, 0, 0, 0] {
        return Some(low());
    }
    // 2002::/16: 6to4 relays to the IPv4 address in bits 16 to 48.
    if s[0] == 0x2002 {
        return Some(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn public(ip: &str) -> bool {
        is_public(ip.parse().expect("an address"))
    }

    #[test]
    fn non_public_ipv4_ranges_are_refused() {
        for ip in [
            "0.0.0.0",
            "0.1.2.3",
            "10.0.0.1",
            "100.64.0.1",
            "100.127.255.254",
            "127.0.0.1",
            "127.8.9.10",
            "169.254.169.254",
            "172.16.0.1",
            "172.31.255.255",
            "192.0.0.8",
            "192.0.2.1",
            "192.168.1.1",
            "198.18.0.1",
            "198.19.255.255",
            "198.51.100.7",
            "203.0.113.9",
            "224.0.0.1",
            "240.0.0.1",
            "255.255.255.255",
        ] {
            assert!(!public(ip), "{ip} is not public");
        }
    }

    #[test]
    fn public_ipv4_addresses_pass() {
        for ip in [
            "1.1.1.1",
            "8.8.8.8",
            "93.184.216.34",
            "100.63.255.255",
            "100.128.0.1",
            "172.15.255.255",
            "172.32.0.1",
            "192.0.0.9",
            "192.0.0.10",
            "198.17.255.255",
            "198.20.0.1",
            "223.255.255.255",
        ] {
            assert!(public(ip), "{ip} is public");
        }
    }

    #[test]
    fn non_public_ipv6_ranges_are_refused() {
        for ip in [
            "::",
            "::1",
            "fe80::1",
            "febf::1",
            "fec0::1",
            "fc00::1",
            "fd12:3456::1",
            "ff02::1",
            "100::1",
            "64:ff9b:1::1",
            "2001::1",
            "2001:db8::1",
            "3fff::1",
            "5f00::1",
            "fe00::1",
            "4000::1",
            // IPv4 inside IPv6 is judged as IPv4.
            "::ffff:127.0.0.1",
            "::ffff:169.254.169.254",
            "::ffff:10.1.2.3",
            "::127.0.0.1",
            "64:ff9b::10.0.0.1",
            "64:ff9b::a9fe:a9fe",
            "2002:7f00:1::1",
            "2002:c0a8:101::1",
        ] {
            assert!(!public(ip), "{ip} is not public");
        }
    }

    #[test]
    fn public_ipv6_addresses_pass() {
        for ip in [
            "2606:4700:4700::1111",
            "2a00:1450:4001:80b::200e",
            "2001:1::1",
            "2001:3::1",
            "2001:20::1",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2002:808:808::1",
            "3fff:1000::1",
        ] {
            assert!(public(ip), "{ip} is public");
        }
    }
}
