//! The delivery's SSRF guard (docs/events-design.md §3): the endpoint's host is resolved once
//! through a [`Resolver`] port, every address is checked, and the connection is pinned to the
//! checked address (the transport's resolve override: no second lookup to rebind). Refused:
//! loopback, private (10/8, 172.16/12, 192.168/16), link-local (169.254/16, fe80::/10), CGNAT
//! (100.64/10), multicast, unspecified, broadcast, documentation and reserved ranges, unique-local
//! (fc00::/7, which holds the EC2 metadata address fd00:ec2::254), 169.254.169.254, and the
//! IPv4-mapped, IPv4-compatible and NAT64 (64:ff9b::/96) forms of those, and the two tunnel
//! ranges whole: 6to4 (2002::/16) and Teredo (2001::/32), whatever IPv4 address they embed (a
//! relay on the way decides where such a packet lands, Teredo's embedded address is obfuscated,
//! and no partner needs a tunnel address for a webhook: docs/events-design.md §3). Loopback
//! passes only in the local-http mode of `ciam serve`, for a URL naming `localhost`,
//! `127.0.0.1` or `[::1]`.
//!
//! The lookup runs inside the attempt's 5 s budget (`outbound::TIMEOUT`, [`check_within`]): a
//! resolver that hangs is a failed attempt, never a stalled worker.

use async_trait::async_trait;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use url::{Host, Url};

/// Resolves a host name to its addresses (the system's DNS in `ciam serve` and Lambda; a table
/// in tests).
#[async_trait]
pub trait Resolver: Send + Sync {
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String>;
}

/// Whether `url`'s host is a loopback name the local-http mode lets through.
pub fn is_local_host(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(d)) => d.eq_ignore_ascii_case("localhost"),
        Some(Host::Ipv4(ip)) => ip.is_loopback(),
        Some(Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

fn v4_forbidden(ip: Ipv4Addr) -> bool {
    let [a, b, ..] = ip.octets();
    ip.is_loopback()
        || ip.is_private()
        || ip.is_link_local()
        || ip.is_multicast()
        || ip.is_unspecified()
        || ip.is_broadcast()
        || ip.is_documentation()
        || a == 0
        || (a == 100 && (64..128).contains(&b))
        || (a == 192 && b == 0 && ip.octets()[2] == 0)
        || (a == 198 && (b == 18 || b == 19))
        || a >= 240
}

fn v6_forbidden(ip: Ipv6Addr) -> bool {
    if let Some(v4) = ip.to_ipv4_mapped() {
        return v4_forbidden(v4);
    }
    let s = ip.segments();
    // NAT64 (64:ff9b::/96) and the deprecated IPv4-compatible form (::a.b.c.d).
    if (s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0; 4]) || s[..6] == [0; 6] {
        let o = ip.octets();
        let v4 = Ipv4Addr::new(o[12], o[13], o[14], o[15]);
        return ip.is_loopback() || ip.is_unspecified() || v4_forbidden(v4);
    }
    ip.is_loopback()
        || ip.is_unspecified()
        || ip.is_multicast()
        || (s[0] & 0xfe00) == 0xfc00
        || (s[0] & 0xffc0) == 0xfe80
        || (s[0] & 0xffc0) == 0xfec0
        || (s[0] == 0x2001 && s[1] == 0x0db8)
        // 6to4 and Teredo: tunnels to an IPv4 address a relay picks; refused outright.
        || s[0] == 0x2002
        || (s[0] == 0x2001 && s[1] == 0x0000)
}

/// Whether a delivery may never connect to `ip` (loopback included: see [`check`]).
pub fn forbidden(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4_forbidden(v4),
        IpAddr::V6(v6) => v6_forbidden(v6),
    }
}

fn loopback(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_loopback(),
        IpAddr::V6(v6) => v6.is_loopback() || v6.to_ipv4_mapped().is_some_and(|v| v.is_loopback()),
    }
}

/// Where an attempt may connect: the URL, its host as written and the one checked address.
#[derive(Clone, Debug, PartialEq)]
pub struct Target {
    pub url: Url,
    pub host: String,
    pub addr: SocketAddr,
}

/// Resolves `url`'s host once and answers the address to pin, or why not (a sentence for the
/// delivery log). Every resolved address must pass: a name that also resolves to a private
/// address is refused (rather than picking the public one, which a rebinding name could turn).
pub async fn check(url: &Url, local_http: bool, resolver: &dyn Resolver) -> Result<Target, String> {
    let local = local_http && is_local_host(url);
    match url.scheme() {
        "https" => {}
        "http" if local => {}
        s => return Err(format!("refused: scheme {s} is not allowed")),
    }
    let port = url
        .port_or_known_default()
        .ok_or_else(|| "refused: no port".to_owned())?;
    let (host, addrs) = match url.host() {
        Some(Host::Ipv4(ip)) => (ip.to_string(), vec![IpAddr::V4(ip)]),
        Some(Host::Ipv6(ip)) => (format!("[{ip}]"), vec![IpAddr::V6(ip)]),
        Some(Host::Domain(d)) => {
            let addrs = resolver
                .resolve(d, port)
                .await
                .map_err(|e| format!("could not resolve {d}: {e}"))?;
            (d.to_owned(), addrs)
        }
        None => return Err("refused: no host".to_owned()),
    };
    let Some(first) = addrs.first().copied() else {
        return Err(format!("could not resolve {host}: no address"));
    };
    for ip in &addrs {
        if forbidden(*ip) && !(local && loopback(*ip)) {
            return Err(format!(
                "refused: {host} resolves to the non-public address {ip}"
            ));
        }
    }
    Ok(Target {
        url: url.clone(),
        host,
        addr: SocketAddr::new(first, port),
    })
}

/// [`check`] within `budget` (the lookup included): past it, the attempt is refused with a
/// timeout, as an answer that never came.
pub async fn check_within(
    url: &Url,
    local_http: bool,
    resolver: &dyn Resolver,
    budget: std::time::Duration,
) -> Result<Target, String> {
    match tokio::time::timeout(budget, check(url, local_http, resolver)).await {
        Ok(r) => r,
        Err(_) => Err(format!(
            "timeout: resolving {} took more than {} s",
            url.host_str().unwrap_or_default(),
            budget.as_secs()
        )),
    }
}

/// A fixed table of names, for tests.
#[derive(Clone, Debug, Default)]
pub struct StaticResolver(pub Vec<(String, Vec<IpAddr>)>);

#[async_trait]
impl Resolver for StaticResolver {
    async fn resolve(&self, host: &str, _port: u16) -> Result<Vec<IpAddr>, String> {
        self.0
            .iter()
            .find(|(h, _)| h.eq_ignore_ascii_case(host))
            .map(|(_, a)| a.clone())
            .ok_or_else(|| "no such host".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> IpAddr {
        s.parse().unwrap()
    }

    #[test]
    fn the_refusal_list() {
        for bad in [
            "127.0.0.1",
            "10.0.0.1",
            "172.16.0.1",
            "172.31.255.255",
            "192.168.1.1",
            "169.254.169.254",
            "169.254.1.1",
            "100.64.0.1",
            "100.127.255.255",
            "224.0.0.1",
            "0.0.0.0",
            "255.255.255.255",
            "::1",
            "::",
            "fe80::1",
            "fc00::1",
            "fd00:ec2::254",
            "ff02::1",
            "::ffff:127.0.0.1",
            "::ffff:10.0.0.1",
            "::ffff:169.254.169.254",
            "64:ff9b::a00:1",
            "64:ff9b::7f00:1",
            "::10.0.0.1",
            // 6to4 (2002::/16) and Teredo (2001::/32), whatever they embed.
            "2002:a00:1::1",
            "2002:7f00:1::",
            "2002:808:808::1",
            "2001:0:4136:e378:8000:63bf:3fff:fdd2",
            "2001::1",
        ] {
            assert!(forbidden(ip(bad)), "{bad}");
        }
        for good in [
            "93.184.216.34",
            "8.8.8.8",
            "100.128.0.1",
            "172.32.0.1",
            "2606:4700::1111",
            "::ffff:8.8.8.8",
            "64:ff9b::808:808",
            "2001:4860:4860::8888",
            "2001:1::1",
        ] {
            assert!(!forbidden(ip(good)), "{good}");
        }
    }

    #[tokio::test]
    async fn a_name_is_resolved_once_and_every_address_checked() {
        let r = StaticResolver(vec![
            ("hooks.example.com".into(), vec![ip("93.184.216.34")]),
            ("inside.example.com".into(), vec![ip("10.0.0.7")]),
            (
                "both.example.com".into(),
                vec![ip("93.184.216.34"), ip("192.168.0.1")],
            ),
            ("localhost".into(), vec![ip("127.0.0.1")]),
        ]);
        let u = |s: &str| Url::parse(s).unwrap();
        let t = check(&u("https://hooks.example.com/x"), false, &r)
            .await
            .unwrap();
        assert_eq!(t.addr, "93.184.216.34:443".parse().unwrap());
        assert_eq!(t.host, "hooks.example.com");
        for refused in [
            "https://inside.example.com/",
            "https://both.example.com/",
            "https://127.0.0.1/",
            "https://[::1]/",
            "https://169.254.169.254/",
            "http://hooks.example.com/",
            "http://localhost:8/",
        ] {
            assert!(check(&u(refused), false, &r).await.is_err(), "{refused}");
        }
        let t = check(&u("http://localhost:8/"), true, &r).await.unwrap();
        assert_eq!(t.addr, "127.0.0.1:8".parse().unwrap());
        assert!(check(&u("http://127.0.0.1:8/"), true, &r).await.is_ok());
        assert!(check(&u("https://inside.example.com/"), true, &r)
            .await
            .is_err());
    }

    /// A resolver that never answers.
    struct Hangs;

    #[async_trait]
    impl Resolver for Hangs {
        async fn resolve(&self, _host: &str, _port: u16) -> Result<Vec<IpAddr>, String> {
            std::future::pending().await
        }
    }

    #[tokio::test]
    async fn a_lookup_that_hangs_ends_within_the_attempts_budget() {
        let u = Url::parse("https://slow.example.com/").unwrap();
        let t0 = std::time::Instant::now();
        let budget = std::time::Duration::from_millis(200);
        let err = check_within(&u, false, &Hangs, budget).await.unwrap_err();
        assert!(err.starts_with("timeout"), "{err}");
        assert!(t0.elapsed() < std::time::Duration::from_secs(2));
    }
}
