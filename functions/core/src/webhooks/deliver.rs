//! Fan-out of one event and one delivery attempt: core functions taking the ports, so that
//! `ciam serve`'s worker (`queue`) and, later, the AWS functions call the same code.
//!
//! Fan-out: who hears the event (`consents::audience`: the deactivation's recorded audience, the
//! revoked app, or the user's consents, one Query), for each of those apps
//! (for `consent.revoked`: the app revoked, whose consent the change deleted) its enabled
//! endpoints subscribed to the kind (one Query per app), the body = `Event::payload_for` with
//! that app's consented scopes. One [`Outbound`] per (endpoint, event).
//!
//! An attempt: the SSRF guard (`guard::check`), the signed POST through the [`Transport`] port
//! pinned to the checked address (no redirects, 5 s, at most 1 KB of the answer read), a
//! delivery log entry, and the endpoint's state: a 2xx is delivered; a 410 disables the
//! endpoint at once; anything else is retried after 5 s, 30 s, 2 min, 10 min, 1 h, then every
//! 2 h while within 24 h of the first try, then failed. An endpoint failing without a success
//! for 3 days is disabled (`disabledAt`).

use super::guard::{self, Resolver, Target};
use super::log::{self, Entry};
use super::{endpoints, sign, Endpoint};
use crate::error::Result;
use crate::events::Event;
use crate::Ciam;
use async_trait::async_trait;
use ciam_store::{Cond, Update};

/// The waits after the 1st, 2nd, ... failed attempt; then [`THEN_SECS`].
pub const BACKOFF_SECS: [i64; 5] = [5, 30, 120, 600, 3600];
pub const THEN_SECS: i64 = 7200;
/// How long after its first try a delivery is retried.
pub const WINDOW_SECS: i64 = 24 * 3600;
/// How long an endpoint may fail without a success before it is disabled.
pub const DISABLE_AFTER_SECS: i64 = 3 * 86_400;
/// The whole attempt's time limit.
pub const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(5);
/// The most of an answer read (and logged).
pub const ANSWER_BYTES: usize = 1024;

/// What the receiver answered, as the transport saw it.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// An HTTP answer: its status (a 3xx is not followed) and at most [`ANSWER_BYTES`] of its body.
    Status {
        code: u16,
        body: Vec<u8>,
        latency_ms: i64,
    },
    /// No answer: connection refused, timeout, TLS failure...
    Failed { error: String, latency_ms: i64 },
}

/// Sends one signed POST to the checked address (the HTTP client lives outside core).
#[async_trait]
pub trait Transport: Send + Sync {
    async fn post(&self, target: &Target, headers: &[(&'static str, String)], body: &str)
        -> Answer;
}

/// One delivery of one event to one endpoint.
#[derive(Clone, Debug, PartialEq)]
pub struct Outbound {
    pub app_id: String,
    pub endpoint_id: String,
    pub user_id: String,
    pub event_id: String,
    /// The event item's sort key (`<at>#<id>`).
    pub event_sk: String,
    pub kind: String,
    pub body: String,
    pub event_at: i64,
    /// When it was first enqueued (the 24 h window starts then; a replay starts a new one).
    pub since: i64,
    /// Attempts made so far.
    pub attempts: i64,
}

/// What follows an attempt.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Delivered,
    /// Try again at this time.
    RetryAt(i64),
    /// Given up: the window ended, or the endpoint is disabled or gone.
    Failed,
}

/// When to try again after `attempts` failed attempts, or None when the window is over.
pub fn next_attempt(since: i64, attempts: i64, now: i64) -> Option<i64> {
    next_attempt_within(since, attempts, now, WINDOW_SECS)
}

/// [`next_attempt`] with another window (a logout notice's, `notices::WINDOW_SECS`).
pub fn next_attempt_within(since: i64, attempts: i64, now: i64, window: i64) -> Option<i64> {
    let i = usize::try_from(attempts.max(1) - 1).unwrap_or(usize::MAX);
    let at = now + BACKOFF_SECS.get(i).copied().unwrap_or(THEN_SECS);
    (at <= since + window).then_some(at)
}

/// The address an attempt may connect to for `url`, past the SSRF guard, looked up within the
/// attempt's [`TIMEOUT`] (answers the time the attempt started, for [`post_checked`]); an
/// invalid URL, a refused address or a lookup past the budget is an answer without a
/// connection (the refusal in its error). Nothing is signed before this passes.
pub(crate) async fn check_url(
    ciam: &Ciam,
    resolver: &dyn Resolver,
    url: &str,
) -> std::result::Result<(Target, std::time::Instant), Answer> {
    let started = std::time::Instant::now();
    let refused = |error: String| Answer::Failed {
        error,
        latency_ms: elapsed_ms(started),
    };
    let Ok(u) = url::Url::parse(url) else {
        return Err(refused("refused: invalid URL".into()));
    };
    guard::check_within(&u, ciam.config.webhooks_local_http, resolver, TIMEOUT)
        .await
        .map(|t| (t, started))
        .map_err(refused)
}

fn elapsed_ms(since: std::time::Instant) -> i64 {
    i64::try_from(since.elapsed().as_millis()).unwrap_or(i64::MAX)
}

/// The POST to a checked `target` in what is left of the attempt's [`TIMEOUT`] since `started`
/// (the lookup's time counts).
pub(crate) async fn post_checked(
    transport: &dyn Transport,
    target: &Target,
    headers: &[(&'static str, String)],
    body: &str,
    started: std::time::Instant,
) -> Answer {
    let left = TIMEOUT.saturating_sub(started.elapsed());
    match tokio::time::timeout(left, transport.post(target, headers, body)).await {
        Ok(a) => a,
        Err(_) => Answer::Failed {
            error: format!("timeout: no answer within {} s", TIMEOUT.as_secs()),
            latency_ms: elapsed_ms(started),
        },
    }
}

/// One POST of `body` to `url` past the SSRF guard ([`check_url`], then [`post_checked`]);
/// `headers` are made (signed) only for a checked address.
pub(crate) async fn post_guarded(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    url: &str,
    headers: impl FnOnce() -> Result<Vec<(&'static str, String)>>,
    body: &str,
) -> Result<Answer> {
    Ok(match check_url(ciam, resolver, url).await {
        Err(refused) => refused,
        Ok((target, started)) => post_checked(transport, &target, &headers()?, body, started).await,
    })
}

/// Notes `answer` in the log entry (status, latency, the first 1 KB of the body, why there was
/// none); answers the HTTP status, 0 when there was no answer.
pub(crate) fn observe(entry: &mut Entry, answer: &Answer) -> u16 {
    match answer {
        Answer::Status {
            code,
            body,
            latency_ms,
        } => {
            entry.status = i64::from(*code);
            entry.latency_ms = *latency_ms;
            let cut = &body[..body.len().min(ANSWER_BYTES)];
            entry.answer = String::from_utf8_lossy(cut).into_owned();
            if (300..400).contains(code) {
                entry.error = Some("redirect not followed".into());
            }
            *code
        }
        Answer::Failed { error, latency_ms } => {
            entry.latency_ms = *latency_ms;
            entry.error = Some(error.clone());
            0
        }
    }
}

/// The log's `outcome` of a step.
pub(crate) fn outcome(step: &Step) -> &'static str {
    match step {
        Step::Delivered => "delivered",
        Step::RetryAt(_) => "retry",
        Step::Failed => "failed",
    }
}

/// The deliveries of `event` to the endpoints of the apps that hear it. Round trips: 1 + one
/// per consented app.
pub async fn fan_out(ciam: &Ciam, event: &Event) -> Result<Vec<Outbound>> {
    // Who hears it: the deactivation's recorded audience (its consents are deleted with the
    // account), the revoked app, or the user's consents now (`consents::audience`).
    let mut apps: Vec<(String, Vec<String>)> = crate::consents::audience(ciam, event)
        .await?
        .into_iter()
        .map(|c| (c.app_id, c.scopes))
        .collect();
    apps.dedup_by(|a, b| a.0 == b.0);
    let mut out = Vec::new();
    for (app_id, scopes) in apps {
        let Some(body) = event.payload_for(&app_id, &scopes) else {
            continue;
        };
        for e in endpoints::of_app(ciam, &app_id).await? {
            if e.enabled() && e.subscribed(event.kind) {
                out.push(outbound(&e, event, body.to_string(), ciam.now()));
            }
        }
    }
    Ok(out)
}

pub(crate) fn outbound(e: &Endpoint, event: &Event, body: String, now: i64) -> Outbound {
    Outbound {
        app_id: e.app_id.clone(),
        endpoint_id: e.endpoint_id.clone(),
        user_id: event.user_id.clone(),
        event_id: event.id.clone(),
        event_sk: event.key().sk,
        kind: event.kind.name().to_owned(),
        body,
        event_at: event.at,
        since: now,
        attempts: 0,
    }
}

/// One attempt of `ob`: checks, sends, logs, and updates the endpoint (a logout notice's:
/// `notices::attempt`). `local_http`: the
/// local-http mode of `ciam serve`. Round trips: 1 read, 1 or 2 writes.
pub async fn attempt(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    ob: &Outbound,
) -> Result<Step> {
    Ok(attempt_state(ciam, transport, resolver, ob).await?.0)
}

/// [`attempt`], and since when the endpoint has failed every delivery (None: it has not, or a
/// logout notice's URL, which has no state), for the delivery function's metrics.
pub async fn attempt_state(
    ciam: &Ciam,
    transport: &dyn Transport,
    resolver: &dyn Resolver,
    ob: &Outbound,
) -> Result<(Step, Option<i64>)> {
    if let Some((receiver, app_id)) = super::notices::parse(&ob.endpoint_id) {
        let step = super::notices::attempt(ciam, transport, resolver, ob, receiver, app_id).await?;
        return Ok((step, None));
    }
    let e = match endpoints::find(ciam, &ob.app_id, &ob.endpoint_id).await {
        Ok(e) => e,
        Err(err) if err.reason == crate::Reason::WEBHOOK_NOT_FOUND => {
            return Ok((Step::Failed, None))
        }
        Err(err) => return Err(err),
    };
    let attempt = ob.attempts + 1;
    let now = ciam.now();
    let mut entry = Entry::new(ob, attempt, now);
    if !e.enabled() {
        entry.outcome = "failed".into();
        entry.error = Some("endpoint disabled".into());
        log::write(ciam, &entry).await?;
        return Ok((Step::Failed, None));
    }
    let signed = || {
        let secrets = endpoints::open_secrets(ciam, &e)?;
        Ok(sign::headers(&secrets, &ob.event_id, now, &ob.body))
    };
    let answer = post_guarded(ciam, transport, resolver, &e.url, signed, &ob.body).await?;
    let code = observe(&mut entry, &answer);
    let ok = (200..300).contains(&code);
    let mut ops = Vec::new();
    let mut disabling = false;
    let failing = (!ok).then(|| e.failing_since.unwrap_or(now));
    let step = if ok {
        ops.push(Update::Set("lastSuccessAt".into(), now.into()));
        ops.push(Update::Remove("failingSince".into()));
        Step::Delivered
    } else {
        let since = e.failing_since.unwrap_or(now);
        if e.failing_since.is_none() {
            ops.push(Update::Set("failingSince".into(), now.into()));
        }
        if code == 410 || now - since >= DISABLE_AFTER_SECS {
            ops.push(Update::Set("disabledAt".into(), now.into()));
            disabling = true;
            entry.error = Some(if code == 410 {
                "410 Gone: endpoint disabled".into()
            } else {
                "failing for 3 days: endpoint disabled".into()
            });
            tracing::warn!(app = %e.app_id, endpoint = %e.endpoint_id, "webhooks: endpoint disabled");
            Step::Failed
        } else {
            match next_attempt(ob.since, attempt, now) {
                Some(at) => Step::RetryAt(at),
                None => Step::Failed,
            }
        }
    };
    entry.outcome = outcome(&step).into();
    log::write(ciam, &entry).await?;
    // A root rotation's overlap: secrets sealed under the previous root ride in this write.
    let mut conds = vec![Cond::Exists];
    match endpoints::reseal(ciam, &e) {
        Ok(Some((more, unchanged))) => {
            ops.extend(more);
            conds.extend(unchanged);
        }
        Ok(None) => {}
        Err(err) => tracing::warn!(cause = %err, "webhooks: cannot seal a secret again"),
    }
    if !ops.is_empty() {
        // Only the attempt that disables it tells the owner (two attempts at once disable it
        // once: the second finds `disabledAt` set).
        if disabling {
            conds.push(Cond::AttrNotExists("disabledAt".into()));
        }
        let cond = match conds.len() {
            1 => Cond::Exists,
            _ => Cond::And(conds),
        };
        match ciam.store.update(&e.key(), ops, Some(cond)).await {
            Ok(_) if disabling => super::owner::tell_disabled(ciam, &e, code == 410).await,
            Ok(_) | Err(ciam_store::StoreError::ConditionFailed) => {}
            Err(err) => return Err(err.into()),
        }
    }
    Ok((step, failing))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_backoff_and_its_window() {
        let t0 = 1_000_000;
        assert_eq!(next_attempt(t0, 1, t0), Some(t0 + 5));
        assert_eq!(next_attempt(t0, 2, t0 + 5), Some(t0 + 35));
        assert_eq!(next_attempt(t0, 3, t0 + 35), Some(t0 + 155));
        assert_eq!(next_attempt(t0, 4, t0), Some(t0 + 600));
        assert_eq!(next_attempt(t0, 5, t0), Some(t0 + 3600));
        assert_eq!(next_attempt(t0, 6, t0), Some(t0 + 7200));
        assert_eq!(next_attempt(t0, 9, t0 + 80_000), None);
    }
}
