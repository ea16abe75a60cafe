//! A delivery on its way (issues 23 and 31, docs/events-design.md §3): the queue's
//! [`Outbound`] and where it goes (a webhook endpoint, or a logout receiver's pseudo endpoint:
//! [`receiver_endpoint`]), the backoff that plans its next attempt, and one POST past the SSRF
//! guard through the [`Transport`] port within the attempt's [`TIMEOUT`]. Shared by the webhook
//! attempt (`deliver`) and the logout notice's (`notices`), which write the delivery log (`log`).

use super::guard::{self, Resolver, Target};
use crate::error::Result;
use crate::oidc::logout::Receiver;
use crate::Ciam;
use async_trait::async_trait;

/// The waits after the 1st, 2nd, ... failed attempt; then [`THEN_SECS`].
pub const BACKOFF_SECS: [i64; 5] = [5, 30, 120, 600, 3600];
pub const THEN_SECS: i64 = 7200;
/// How long after its first try a delivery is retried.
pub const WINDOW_SECS: i64 = 24 * 3600;
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

/// One value of a delivery record.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Field<'a> {
    S(&'a str),
    N(i64),
}

impl Outbound {
    /// The record's fields by name: the one list the queue item (`queue::to_item`, `queued`)
    /// and the SQS message body (functions/lambdas `webhooks::message`) are written from and
    /// read back with [`Outbound::from_fields`], so the two cannot drift.
    pub fn fields(&self) -> [(&'static str, Field<'_>); 10] {
        [
            ("appId", Field::S(&self.app_id)),
            ("endpointId", Field::S(&self.endpoint_id)),
            ("userId", Field::S(&self.user_id)),
            ("eventId", Field::S(&self.event_id)),
            ("eventSk", Field::S(&self.event_sk)),
            ("kind", Field::S(&self.kind)),
            ("body", Field::S(&self.body)),
            ("eventAt", Field::N(self.event_at)),
            ("since", Field::N(self.since)),
            ("attempts", Field::N(self.attempts)),
        ]
    }

    /// The record read back by name (`s` a string field, `n` a number; an error names the
    /// missing one): the inverse of [`Outbound::fields`].
    pub fn from_fields<E>(
        s: impl Fn(&'static str) -> Result<String, E>,
        n: impl Fn(&'static str) -> Result<i64, E>,
    ) -> Result<Outbound, E> {
        Ok(Outbound {
            app_id: s("appId")?,
            endpoint_id: s("endpointId")?,
            user_id: s("userId")?,
            event_id: s("eventId")?,
            event_sk: s("eventSk")?,
            kind: s("kind")?,
            body: s("body")?,
            event_at: n("eventAt")?,
            since: n("since")?,
            attempts: n("attempts")?,
        })
    }
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

/// The pseudo endpoint id of an app's logout URL in the queue and the delivery log (`notices`).
pub fn receiver_endpoint(receiver: Receiver, app_id: &str) -> String {
    format!("{}.{app_id}", receiver.name())
}

/// The receiver and app of a pseudo endpoint id, None for a webhook endpoint's (`ep_...`).
pub fn receiver_of(endpoint_id: &str) -> Option<(Receiver, &str)> {
    let (r, app) = endpoint_id.split_once('.')?;
    Some((Receiver::parse(r)?, app))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pseudo_endpoints_name_the_receiver_and_the_app() {
        let id = receiver_endpoint(Receiver::Backchannel, "a1b2");
        assert_eq!(id, "backchannel.a1b2");
        assert_eq!(receiver_of(&id), Some((Receiver::Backchannel, "a1b2")));
        assert_eq!(receiver_of("logoutUrl.x"), Some((Receiver::LogoutUrl, "x")));
        assert_eq!(receiver_of("ep_0123456789abcdef"), None);
        assert_eq!(receiver_of("other.x"), None);
    }

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
