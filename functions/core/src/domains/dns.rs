//! The real TXT lookup (feature `dns`): hickory-resolver, one configured server, no cache, a
//! hard deadline (docs/organizations-domains.md §1.1).

use crate::domains::txt::{LookupError, TxtLookup};
use async_trait::async_trait;
use hickory_resolver::config::{ConnectionConfig, NameServerConfig, ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::proto::rr::RData;
use hickory_resolver::{Resolver, TokioResolver};
use std::net::SocketAddr;
use std::time::Duration;

/// One try's wait for an answer.
pub const TRY_TIMEOUT: Duration = Duration::from_secs(2);
/// Tries per lookup.
pub const TRIES: usize = 2;
/// The whole lookup's bound, whatever the resolver does inside it (and never past the request's
/// deadline, `deadline::remaining`).
pub const LOOKUP_BUDGET: Duration = Duration::from_secs(5);

/// The environment variable naming the server, `ip:port`; unset: the system's resolver.
pub const ENV: &str = "CIAM_DNS_RESOLVER";

/// See the module.
pub struct Hickory {
    resolver: TokioResolver,
    budget: Duration,
}

fn options(timeout: Duration, attempts: usize) -> ResolverOpts {
    let mut o = ResolverOpts::default();
    o.timeout = timeout;
    o.attempts = attempts;
    // The admin who just fixed a record must not be answered from a cache.
    o.cache_size = 0;
    o.ndots = 0;
    o.use_hosts_file = hickory_resolver::config::ResolveHosts::Never;
    o
}

impl Hickory {
    /// A lookup through `server` only (UDP, TCP when truncated).
    pub fn at(server: SocketAddr, timeout: Duration, attempts: usize) -> Result<Hickory, String> {
        let mut udp = ConnectionConfig::udp();
        udp.port = server.port();
        let mut tcp = ConnectionConfig::tcp();
        tcp.port = server.port();
        let ns = NameServerConfig::new(server.ip(), true, vec![udp, tcp]);
        let config = ResolverConfig::from_parts(None, vec![], vec![ns]);
        let resolver = Resolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(options(timeout, attempts))
            .build()
            .map_err(|e| e.to_string())?;
        Ok(Hickory {
            resolver,
            budget: LOOKUP_BUDGET,
        })
    }

    /// `CIAM_DNS_RESOLVER=ip:port` when set (an error when it does not parse), else the
    /// system's configuration (`/etc/resolv.conf`).
    pub fn from_env() -> Result<Hickory, String> {
        match std::env::var(ENV) {
            Ok(v) if !v.trim().is_empty() => {
                let addr: SocketAddr = v
                    .trim()
                    .parse()
                    .map_err(|_| format!("{ENV} must be ip:port, got {v:?}"))?;
                Hickory::at(addr, TRY_TIMEOUT, TRIES)
            }
            _ => {
                let resolver = Resolver::builder_tokio()
                    .map_err(|e| e.to_string())?
                    .with_options(options(TRY_TIMEOUT, TRIES))
                    .build()
                    .map_err(|e| e.to_string())?;
                Ok(Hickory {
                    resolver,
                    budget: LOOKUP_BUDGET,
                })
            }
        }
    }

    /// The same, bounded by `budget` in all (tests use a short one).
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }
}

#[async_trait]
impl TxtLookup for Hickory {
    async fn txt(&self, name: &str) -> Result<Vec<String>, LookupError> {
        // Fully qualified: no search domains.
        let fqdn = format!("{}.", name.trim_end_matches('.'));
        let budget = crate::deadline::remaining().map_or(self.budget, |left| left.min(self.budget));
        let answer = tokio::time::timeout(budget, self.resolver.txt_lookup(fqdn.as_str())).await;
        match answer {
            Err(_) => Err(LookupError::Unavailable("no answer in time".into())),
            Ok(Err(e)) if e.is_no_records_found() => Err(LookupError::NotFound),
            Ok(Err(e)) => Err(LookupError::Unavailable(e.to_string())),
            Ok(Ok(lookup)) => Ok(lookup
                .answers()
                .iter()
                .filter_map(|r| match &r.data {
                    RData::TXT(txt) => Some(
                        txt.txt_data
                            .iter()
                            .map(|s| String::from_utf8_lossy(s))
                            .collect::<String>(),
                    ),
                    _ => None,
                })
                .collect()),
        }
    }
}
