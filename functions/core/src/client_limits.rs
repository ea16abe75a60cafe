//! Per-client request limits kept by Ciam itself, for the mainland China cell (issue 32 item 2;
//! docs/multi-region.md "Per-client limits in the cn cell"). AWS WAF in China is regional and
//! attaches to REST APIs, not to the HTTP API both cells use, so the cn cell counts its clients
//! in its own table instead of a web ACL: the same rules, limits and window as infra/waf.yaml.
//!
//! One item per client and 5-minute window holds every counter of that client (the blanket rule
//! and each route rule), so a request costs ONE conditional `UpdateItem`: it adds 1 to the
//! blanket counter and to its route's rule, on condition that neither has reached its limit.
//! When the condition fails nothing is added (a refused client does not push its own window
//! further), and the store answers the item as it is, from which the refusal names the rule.
//! The item expires at the window's end (DynamoDB TTL removes it later; readers see it gone at
//! once), so the next window starts from zero. A fixed window, where WAF slides: a client can
//! pass up to twice a limit across a window's boundary, never more.
//!
//! The client is its IPv4 address, or its IPv6 /64: a host that rotates addresses within its
//! /64 (every IPv6 customer line has 2^64 of them) is one client, the IPv6-proof key that WAF's
//! per-network rule gives the global cell.

use crate::{Ciam, Error};
use ciam_store::{Cond, Item, Key, Update};
use std::net::IpAddr;

/// Seconds of one counting window: infra/waf.yaml's `EvaluationWindowSec` of every rate rule.
pub const WINDOW_SECS: i64 = 300;

/// One rule: its name (infra/waf.yaml's rule name, also the counter's attribute) and how many
/// requests a client may make in a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limit {
    pub rule: &'static str,
    pub limit: i64,
}

/// The outcome of counting one request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Allowed,
    /// Over `rule`'s limit until the window ends, `retry_after` seconds from now (at least 1).
    Refused {
        rule: &'static str,
        retry_after: i64,
    },
}

/// The key a client is counted under: `4:<address>` for IPv4 (an IPv4-mapped IPv6 address is
/// its IPv4 address), `6:<the /64>` for IPv6, and `unknown` when the request carries no address
/// at all (all such requests share one counter: leaving out the address never escapes a limit).
pub fn client_key(ip: Option<IpAddr>) -> String {
    match ip {
        Some(IpAddr::V4(v4)) => format!("4:{v4}"),
        Some(IpAddr::V6(v6)) => match v6.to_ipv4_mapped() {
            Some(v4) => format!("4:{v4}"),
            None => {
                let s = v6.segments();
                format!("6:{:x}:{:x}:{:x}:{:x}::/64", s[0], s[1], s[2], s[3])
            }
        },
        None => "unknown".to_owned(),
    }
}

/// The counter item of `client` for the window that starts at `window`.
pub fn key(client: &str, window: i64) -> Key {
    Key::new(format!("LIMIT#{client}"), format!("W#{window}"))
}

/// Counts one request of `client` against `rules` (the blanket rule and, for a route that has
/// one, its own), in one conditional write. A store failure is an error (503 with Retry-After,
/// as every store fault): the route behind would need the same store anyway.
pub async fn count(ciam: &Ciam, client: &str, rules: &[Limit]) -> Result<Verdict, Error> {
    if rules.is_empty() {
        return Ok(Verdict::Allowed);
    }
    let now = ciam.now();
    let window = now - now.rem_euclid(WINDOW_SECS);
    let ends = window + WINDOW_SECS;
    let mut ops: Vec<Update> = rules
        .iter()
        .map(|r| Update::Add(r.rule.to_owned(), 1))
        .collect();
    ops.push(Update::Expires(Some(ends)));
    let under = |r: &Limit| Cond::attr_not_exists(r.rule).or(Cond::lt(r.rule, r.limit));
    let cond = match rules {
        [one] => under(one),
        many => Cond::And(many.iter().map(under).collect()),
    };
    match ciam
        .store
        .update_or_current(&key(client, window), ops, Some(cond))
        .await?
    {
        Ok(_) => Ok(Verdict::Allowed),
        Err(current) => Ok(Verdict::Refused {
            rule: over(current.as_ref(), rules),
            retry_after: (ends - now).max(1),
        }),
    }
}

/// The first rule whose counter has reached its limit in `item` (the blanket rule when the item
/// says nothing: it is listed first by the callers).
fn over(item: Option<&Item>, rules: &[Limit]) -> &'static str {
    let reached = |r: &&Limit| {
        item.and_then(|i| i.attrs.get(r.rule))
            .is_some_and(|v| matches!(v, ciam_store::Value::N(n) if *n >= r.limit))
    };
    rules
        .iter()
        .find(reached)
        .or(rules.first())
        .map_or("", |r| r.rule)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ip(s: &str) -> Option<IpAddr> {
        s.parse().ok()
    }

    #[test]
    fn ipv4_is_the_address_and_ipv6_its_64() {
        assert_eq!(client_key(ip("203.0.113.7")), "4:203.0.113.7");
        assert_eq!(client_key(ip("::ffff:203.0.113.7")), "4:203.0.113.7");
        let a = client_key(ip("2001:db8:1:2:aaaa::1"));
        assert_eq!(a, "6:2001:db8:1:2::/64");
        assert_eq!(a, client_key(ip("2001:db8:1:2:ffff:ffff:ffff:fffe")));
        assert_ne!(a, client_key(ip("2001:db8:1:3::1")));
        assert_eq!(client_key(None), "unknown");
    }

    #[tokio::test]
    async fn the_limit_holds_per_rule_and_the_next_window_starts_afresh() {
        let kit = crate::testing::kit(1_000_000_100).await;
        let rules = [
            Limit {
                rule: "Blanket",
                limit: 5,
            },
            Limit {
                rule: "Route",
                limit: 2,
            },
        ];
        let c = "4:203.0.113.7";
        for _ in 0..2 {
            assert_eq!(count(&kit.ciam, c, &rules).await, Ok(Verdict::Allowed));
        }
        // 1_000_000_100 is 200 s into its window (1_000_000_100 % 300 = 200).
        assert_eq!(
            count(&kit.ciam, c, &rules).await,
            Ok(Verdict::Refused {
                rule: "Route",
                retry_after: 100
            })
        );
        // The blanket rule alone still admits (its count did not grow with the refusal).
        for _ in 0..3 {
            assert_eq!(count(&kit.ciam, c, &rules[..1]).await, Ok(Verdict::Allowed));
        }
        assert_eq!(
            count(&kit.ciam, c, &rules[..1]).await,
            Ok(Verdict::Refused {
                rule: "Blanket",
                retry_after: 100
            })
        );
        kit.clock.advance(100);
        assert_eq!(count(&kit.ciam, c, &rules).await, Ok(Verdict::Allowed));
    }
}
