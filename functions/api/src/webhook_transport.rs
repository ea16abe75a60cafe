//! The webhook delivery's HTTP client (core's `webhooks::Transport` port) and the system's DNS
//! (`webhooks::guard::Resolver`), used by `ciam serve`'s worker and, later, the delivery
//! function. One POST: pinned to the address the guard checked (reqwest's `resolve`
//! override, so no second lookup can rebind the name), no redirects followed, 5 s in all, at
//! most 1 KB of the answer read.

use async_trait::async_trait;
use ciam_core::webhooks::guard::{Resolver, Target};
use ciam_core::webhooks::outbound::{ANSWER_BYTES, TIMEOUT};
use ciam_core::webhooks::{Answer, Transport};
use std::net::IpAddr;
use std::time::Instant;

/// Sends with reqwest (rustls).
#[derive(Clone, Copy, Debug, Default)]
pub struct HttpTransport;

fn ms(since: Instant) -> i64 {
    i64::try_from(since.elapsed().as_millis()).unwrap_or(i64::MAX)
}

#[async_trait]
impl Transport for HttpTransport {
    async fn post(
        &self,
        target: &Target,
        headers: &[(&'static str, String)],
        body: &str,
    ) -> Answer {
        let start = Instant::now();
        crate::federation::tls_provider();
        let mut builder = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(TIMEOUT)
            .connect_timeout(TIMEOUT)
            .no_proxy()
            .user_agent("Ciam-Webhooks/1");
        if target.url.domain().is_some() {
            builder = builder.resolve(&target.host, target.addr);
        }
        let client = match builder.build() {
            Ok(c) => c,
            Err(e) => {
                return Answer::Failed {
                    error: format!("client: {e}"),
                    latency_ms: ms(start),
                }
            }
        };
        let mut req = client.post(target.url.clone());
        // A webhook is JSON; a logout notice names its own type (a form).
        if !headers
            .iter()
            .any(|(k, _)| k.eq_ignore_ascii_case("content-type"))
        {
            req = req.header("content-type", "application/json");
        }
        for (k, v) in headers {
            req = req.header(*k, v);
        }
        let send = async {
            let mut res = req.body(body.to_owned()).send().await?;
            let code = res.status().as_u16();
            let mut got = Vec::new();
            while got.len() < ANSWER_BYTES {
                match res.chunk().await? {
                    Some(c) => got.extend_from_slice(&c),
                    None => break,
                }
            }
            got.truncate(ANSWER_BYTES);
            Ok::<_, reqwest::Error>((code, got))
        };
        match tokio::time::timeout(TIMEOUT, send).await {
            Ok(Ok((code, body))) => Answer::Status {
                code,
                body,
                latency_ms: ms(start),
            },
            Ok(Err(e)) => Answer::Failed {
                error: e.to_string(),
                latency_ms: ms(start),
            },
            Err(_) => Answer::Failed {
                error: "timed out after 5 s".into(),
                latency_ms: ms(start),
            },
        }
    }
}

/// The system's resolver (tokio's `lookup_host`).
#[derive(Clone, Copy, Debug, Default)]
pub struct DnsResolver;

#[async_trait]
impl Resolver for DnsResolver {
    async fn resolve(&self, host: &str, port: u16) -> Result<Vec<IpAddr>, String> {
        let addrs = tokio::net::lookup_host((host, port))
            .await
            .map_err(|e| e.to_string())?;
        Ok(addrs.map(|a| a.ip()).collect())
    }
}
