//! WeCom's corp token, cached in the store (docs/federation-design.md §2.2): WeCom says to
//! cache it and not to call `gettoken` often (path/91039), and rate-limits it, so one token per
//! corp and app serves every sign-in until it is nearly due, across every Lambda instance.
//!
//! Item `FEDTOKEN#wecom#<corpid>#<agentid>` (an organization's connection's:
//! `FEDTOKEN#wecom#<corpid>#<agentid>#<connId>`) / `TOKEN`: `token` (AES-256-GCM under the
//! [`LABEL`] key, bound to the item's partition key, as `ciam_core::sealed` seals the other
//! short secrets), `gen` (which fetch made it), `fetchedAt`, `usableUntil` (fetchedAt +
//! expires_in − 300 s; also the expiry, which is garbage collection only), `leaseUntil` while
//! one caller fetches.
//!
//! - Read; a usable token is used (one round trip per call, no write).
//! - Else take the lease (`leaseUntil = now + 5` on `(attribute_not_exists(leaseUntil) OR
//!   leaseUntil < now) AND` the item still holds the `gen` the read saw, or none; a token cached
//!   in between is answered by the failed condition and used), fetch, put the sealed token
//!   (`attribute_not_exists(fetchedAt) OR fetchedAt <= now`: a token fetched later is never
//!   replaced), which also ends the lease.
//! - A caller that finds the lease held does not try to take it (a failed conditional write is
//!   billed like a write): it reads again after 50, 100, 200, then every 250 ms, for as long as
//!   the lease lasts ([`LEASE_SECS`], wall-clock), then fetches itself: a bounded wait, never a
//!   stall, and no burst of `gettoken` calls while the holder's fetch is merely slow.
//! - WeCom refusing the token (40014/42001): [`drop_token`] deletes the item only if it still
//!   holds that token (`gen`), so a fresher one is kept; the caller then asks again.
//! - A store failure is SERVICE_UNAVAILABLE, never a reason to fetch: an outage of the store
//!   must not turn every sign-in into a `gettoken` call.

use ciam_core::federation::FedError;
use ciam_core::{random, sealed, Ciam};
use ciam_store::{Cond, Item, Key, StoreError, Update, Value};
use std::future::Future;
use std::time::Duration;

/// The key label the token is sealed under. It must be among the labels of the key purpose
/// the WeCom callback's row declares once the row exists (with the federation items' own).
pub const LABEL: &str = "fed-token";
/// How long one caller may fetch before another may take over.
pub const LEASE_SECS: i64 = 5;
/// A token is used until this long before WeCom says it expires.
pub const MARGIN_SECS: i64 = 300;
/// How long a caller that lost the lease waits for the holder's token before fetching its own
/// (wall-clock time, as the holder's call to WeCom takes): as long as the lease lasts.
const PATIENCE: Duration = Duration::from_secs(LEASE_SECS as u64);

/// The pause before the next read of a caller that lost the lease: 50 ms, 100 ms, 200 ms, then
/// every 250 ms (a fetch usually takes a few hundred milliseconds).
fn wait(waits: u32) -> Duration {
    Duration::from_millis((50u64 << waits.min(3)).min(250))
}

/// Which token: one per corp and app.
#[derive(Clone, Copy, Debug)]
pub struct CacheKey<'a> {
    pub corp_id: &'a str,
    pub agent_id: &'a str,
}

impl CacheKey<'_> {
    pub fn pk(&self) -> String {
        format!("FEDTOKEN#wecom#{}#{}", self.corp_id, self.agent_id)
    }

    pub fn key(&self) -> Key {
        Key::new(self.pk(), "TOKEN")
    }
}

/// A corp token and which fetch made it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CorpToken {
    pub value: String,
    gen: String,
}

fn store_down(e: StoreError) -> FedError {
    FedError::Unavailable(format!("wecom token cache: {e}"))
}

/// The token `item` holds, if it is still usable and opens under these keys or, during a
/// rotation's overlap, the previous root's (one that opens under neither is fetched again, not
/// an error).
fn usable(ciam: &Ciam, key: CacheKey<'_>, item: &Item) -> Option<CorpToken> {
    if item.n("usableUntil").is_none_or(|u| u <= ciam.now()) {
        return None;
    }
    let (pk, token) = (key.pk(), item.b("token")?);
    let open = |keys| sealed::open(keys, LABEL, &pk, token).ok().flatten();
    let plain = open(&ciam.keys).or_else(|| ciam.keys.previous().and_then(open))?;
    Some(CorpToken {
        value: String::from_utf8(plain).ok()?,
        gen: item.s("gen")?.to_owned(),
    })
}

/// The corp token: the cached one, or one `fetch` gets (under the lease). Round trips: 1 when
/// cached; else 1 + the lease + the put (or, while another caller fetches, a read every
/// 250 ms at most).
pub async fn corp_token<F, Fut>(
    ciam: &Ciam,
    key: CacheKey<'_>,
    fetch: F,
) -> Result<CorpToken, FedError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(String, i64), FedError>>,
{
    let k = key.key();
    let started = std::time::Instant::now();
    let mut waits = 0u32;
    loop {
        let item = ciam.store.get(&k).await.map_err(store_down)?;
        if let Some(t) = item.as_ref().and_then(|i| usable(ciam, key, i)) {
            return Ok(t);
        }
        if started.elapsed() >= PATIENCE {
            break;
        }
        let now = ciam.now();
        let held = item
            .as_ref()
            .and_then(|i| i.n("leaseUntil"))
            .is_some_and(|until| until >= now);
        if !held {
            // The lease is free, and the item still holds what this read saw: a token cached
            // since (which also ended its lease) is used, not fetched again.
            let free = Cond::attr_not_exists("leaseUntil").or(Cond::lt("leaseUntil", now));
            let unchanged = match item.as_ref().and_then(|i| i.s("gen")) {
                Some(gen) => Cond::eq("gen", gen),
                None => Cond::attr_not_exists("gen"),
            };
            let ops = vec![
                Update::Set("leaseUntil".into(), Value::N(now + LEASE_SECS)),
                // A lease whose fetch failed does not linger.
                Update::Expires(Some(now + LEASE_SECS + 60)),
            ];
            match ciam
                .store
                .update_or_current(&k, ops, Some(free.and(unchanged)))
                .await
            {
                Ok(Ok(_)) => return fill(ciam, key, &fetch).await,
                Ok(Err(now_there)) => {
                    if let Some(t) = now_there.as_ref().and_then(|i| usable(ciam, key, i)) {
                        return Ok(t);
                    }
                }
                Err(e) => return Err(store_down(e)),
            }
        }
        // Another caller holds the lease: read again soon, then less often.
        tokio::time::sleep(wait(waits)).await;
        waits += 1;
    }
    tracing::warn!(
        corp = key.corp_id,
        "wecom corp token: the lease holder did not fill the cache in time; fetching"
    );
    fill(ciam, key, &fetch).await
}

/// Fetches a token and caches it, which ends the lease; a failed fetch ends it too.
async fn fill<F, Fut>(ciam: &Ciam, key: CacheKey<'_>, fetch: &F) -> Result<CorpToken, FedError>
where
    F: Fn() -> Fut,
    Fut: Future<Output = Result<(String, i64), FedError>>,
{
    let (value, ttl) = match fetch().await {
        Ok(got) => got,
        Err(e) => {
            // The next caller need not wait the lease out: WeCom's answer decides for it too.
            let end = vec![Update::Remove("leaseUntil".into())];
            let _ = ciam.store.update(&key.key(), end, Some(Cond::Exists)).await;
            return Err(e);
        }
    };
    let now = ciam.now();
    let gen: String = random::<8>(ciam.entropy.as_ref())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sealed = sealed::seal(
        &ciam.keys,
        ciam.entropy.as_ref(),
        LABEL,
        &key.pk(),
        value.as_bytes(),
    )
    .map_err(|e| FedError::Unavailable(format!("wecom token cache: sealing: {e:?}")))?;
    let usable_until = now + (ttl - MARGIN_SECS).max(ttl / 2);
    let item = Item::new(key.key())
        .with("token", Value::B(sealed))
        .with("gen", gen.as_str())
        .with("fetchedAt", now)
        .with("usableUntil", usable_until)
        .expires(usable_until);
    let newer_kept = Cond::attr_not_exists("fetchedAt").or(Cond::le("fetchedAt", now));
    match ciam.store.put(item, Some(newer_kept)).await {
        // ConditionFailed: a token fetched as late is cached; this one works for this call.
        Ok(()) | Err(StoreError::ConditionFailed) => {}
        // The token is good: this sign-in goes on, the next one reads (and may fetch) again.
        Err(e) => tracing::warn!(error = %e, "wecom corp token: not cached"),
    }
    Ok(CorpToken { value, gen })
}

/// WeCom refused `token`: the cache forgets it unless it already holds a newer one. Round
/// trips: 1.
pub async fn drop_token(ciam: &Ciam, key: CacheKey<'_>, token: &CorpToken) -> Result<(), FedError> {
    let this_one = Cond::eq("gen", token.gen.as_str());
    match ciam.store.delete(&key.key(), Some(this_one)).await {
        Ok(()) | Err(StoreError::ConditionFailed) => Ok(()),
        Err(e) => Err(store_down(e)),
    }
}
