//! The delivery log: `DLV#<endpointId>` / `<at, 12 digits>#<eventId>#<attempt, 3 digits>#<4 hex>`
//! {eventId, kind, userId, eventSk, attempt, status, outcome, latencyMs, answer, error, at},
//! one item per attempt, kept 30 days. Listed newest first, paged.

use super::endpoints;
use super::outbound::{self, Answer, Outbound, Step, ANSWER_BYTES};
use crate::apps::{app_key, AppId};
use crate::error::Result;
use crate::oidc::logout::Receiver;
use crate::{random, Ciam, Reason};
use ciam_store::{Item, Key, Query};
use serde::Serialize;

pub const KEEP_SECS: i64 = 30 * 86_400;
pub const PK_PREFIX: &str = "DLV#";
/// The longest page.
pub const PAGE: usize = 50;

/// One attempt, as logged.
#[derive(Clone, Debug, Serialize, PartialEq)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "WebhookDelivery"))]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    #[serde(skip)]
    pub endpoint_id: String,
    /// The `webhook-id` sent.
    pub event_id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub user_id: String,
    #[serde(skip)]
    pub event_sk: String,
    pub attempt: i64,
    /// The HTTP status, 0 when there was no answer (refused, unreachable, timeout).
    pub status: i64,
    /// `delivered`, `retry` (another attempt is planned) or `failed`.
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["delivered", "retry", "failed"]))
    )]
    pub outcome: String,
    pub latency_ms: i64,
    /// At most the first 1 KB of the answer's body.
    pub answer: String,
    pub error: Option<String>,
    pub at: i64,
}

impl Entry {
    pub fn new(ob: &Outbound, attempt: i64, at: i64) -> Entry {
        Entry {
            endpoint_id: ob.endpoint_id.clone(),
            event_id: ob.event_id.clone(),
            kind: ob.kind.clone(),
            user_id: ob.user_id.clone(),
            event_sk: ob.event_sk.clone(),
            attempt,
            status: 0,
            outcome: String::new(),
            latency_ms: 0,
            answer: String::new(),
            error: None,
            at,
        }
    }

    pub fn from_item(i: &Item) -> Entry {
        Entry {
            endpoint_id: i
                .key
                .pk
                .strip_prefix(PK_PREFIX)
                .unwrap_or_default()
                .to_owned(),
            event_id: i.s("eventId").unwrap_or_default().to_owned(),
            kind: i.s("kind").unwrap_or_default().to_owned(),
            user_id: i.s("userId").unwrap_or_default().to_owned(),
            event_sk: i.s("eventSk").unwrap_or_default().to_owned(),
            attempt: i.n("attempt").unwrap_or_default(),
            status: i.n("status").unwrap_or_default(),
            outcome: i.s("outcome").unwrap_or_default().to_owned(),
            latency_ms: i.n("latencyMs").unwrap_or_default(),
            answer: i.s("answer").unwrap_or_default().to_owned(),
            error: i.s("error").map(str::to_owned),
            at: i.n("at").unwrap_or_default(),
        }
    }
}

/// Writes one entry. Round trips: 1.
pub(crate) async fn write(ciam: &Ciam, e: &Entry) -> Result<()> {
    let sk = format!(
        "{:012}#{}#{:03}#{}",
        e.at,
        e.event_id,
        e.attempt,
        hex::encode(random::<2>(ciam.entropy.as_ref()))
    );
    let item = Item::new(Key::new(format!("{PK_PREFIX}{}", e.endpoint_id), sk))
        .with("eventId", e.event_id.as_str())
        .with("kind", e.kind.as_str())
        .with("userId", e.user_id.as_str())
        .with("eventSk", e.event_sk.as_str())
        .with("attempt", e.attempt)
        .with("status", e.status)
        .with("outcome", e.outcome.as_str())
        .with("latencyMs", e.latency_ms)
        .with("answer", e.answer.as_str())
        .with_opt("error", e.error.as_deref())
        .with("at", e.at)
        .expires(e.at + KEEP_SECS);
    ciam.store.put(item, None).await?;
    Ok(())
}

/// A page of the log, newest first, and the cursor of the next page (None: the last).
#[derive(Debug, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "WebhookDeliveries"))]
#[serde(rename_all = "camelCase")]
pub struct Page {
    pub deliveries: Vec<Entry>,
    pub next: Option<String>,
}

/// `GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries`: a page of at most `limit` (≤ 50)
/// entries after cursor `after`. `endpointId` `backchannel` or `logoutUrl`: the log of the app's
/// logout notices (`notices`), for an app that exists. Round trips: 2.
pub async fn page(
    ciam: &Ciam,
    app_id: &str,
    endpoint_id: &str,
    after: Option<String>,
    limit: Option<usize>,
) -> Result<Page> {
    let logged = match Receiver::parse(endpoint_id) {
        Some(r) => {
            let known =
                AppId::parse(app_id).is_some() && ciam.store.get(&app_key(app_id)).await?.is_some();
            if !known {
                return Err(Reason::WEBHOOK_NOT_FOUND.into());
            }
            outbound::receiver_endpoint(r, app_id)
        }
        None => {
            endpoints::find(ciam, app_id, endpoint_id)
                .await?
                .endpoint_id
        }
    };
    let limit = limit.unwrap_or(PAGE).clamp(1, PAGE);
    let mut q = Query::partition(format!("{PK_PREFIX}{logged}"))
        .descending()
        .limit(limit + 1);
    if let Some(a) = after.filter(|a| !a.is_empty() && a.len() <= 128) {
        q = q.after(a);
    }
    let mut items = ciam.store.query(q).await?;
    let next = (items.len() > limit).then(|| {
        items.truncate(limit);
        items.last().map(|i| i.key.sk.clone())
    });
    Ok(Page {
        deliveries: items.iter().map(Entry::from_item).collect(),
        next: next.flatten(),
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
