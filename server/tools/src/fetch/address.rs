//! Which addresses `fetch_url` may connect to, checked on the resolved IP at connect time: a
//! name that resolves to a private address (DNS rebinding included) is refused there, not before.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// Whether `ip` is on the public internet: not loopback, private, link-local, unique-local,
/// shared (CGNAT), multicast, broadcast, documentation or unspecified.
pub fn is_public(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => is_public_v4(v4),
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => is_public_v4(v4),
            None => is_public_v6(v6),
        },
    }
}

fn is_public_v4(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    !(ip.is_private()
        || ip.is_loopback()
        || ip.is_link_local()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_multicast()
        || ip.is_documentation()
        || a == 0
        // 100.64.0.0/10: carrier-grade NAT, often a provider's or a VPN's own network.
        || (a == 100 && (64..128).contains(&b))
        // 198.18.0.0/15: benchmarking; 240.0.0.0/4: reserved.
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240)
}

fn is_public_v6(ip: Ipv6Addr) -> bool {
    let first = ip.segments()[0];
    !(ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        // fc00::/7 unique-local, fe80::/10 link-local, fec0::/10 site-local (deprecated).
        || (first & 0xfe00) == 0xfc00
        || (first & 0xffc0) == 0xfe80
        || (first & 0xffc0) == 0xfec0
        // ::/96 IPv4-compatible and 64:ff9b::/96 NAT64 can reach IPv4 private addresses.
        || ip.segments()[..6] == [0; 6]
        || (first == 0x64 && ip.segments()[1] == 0xff9b))
}

/// The resolver every fetch uses: the system's, with non-public addresses dropped unless the
/// host is one the user listed by name. A name left with no address fails to connect, and the
/// error says why.
pub struct PublicOnly {
    /// Host names (lower case) the user listed in `approval.allowFetch`.
    pub allowed: Vec<String>,
}

impl Resolve for PublicOnly {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().to_ascii_lowercase();
        let listed = self.allowed.contains(&host);
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            let kept: Vec<SocketAddr> = found
                .iter()
                .copied()
                .filter(|a| listed || is_public(a.ip()))
                .collect();
            if kept.is_empty() && !found.is_empty() {
                return Err(Box::new(PrivateAddress {
                    host,
                    ip: found[0].ip(),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(kept.into_iter()) as Addrs)
        })
    }
}

/// The resolver's refusal, found again in the error chain to tell the model what happened.
#[derive(Debug, thiserror::Error)]
#[error(
    "{host} resolves to {ip}, a private, loopback or local address; fetch_url reaches such a \
     host only when the user lists it by name in approval.allowFetch"
)]
pub struct PrivateAddress {
    pub host: String,
    pub ip: IpAddr,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn local_and_private_addresses_are_not_public() {
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "0.0.0.0",
            "100.100.0.1",
            "::1",
            "::",
            "fd00::1",
            "fe80::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::127.0.0.1",
            "64:ff9b::a00:1",
        ] {
            assert!(!is_public(ip.parse().unwrap()), "{ip}");
        }
        for ip in ["93.184.215.14", "1.1.1.1", "2606:4700::1111"] {
            assert!(is_public(ip.parse().unwrap()), "{ip}");
        }
    }
}
