//! Webhook endpoints of a partner app in the console (`/admin/apps/{appId}/webhooks...`,
//! docs/events-design.md §3, docs/console-design.md §5): each handler takes `extract::Op` first
//! (its row's role; a fresh proof for a change); each change carries a `reason` and its audit
//! entry is written in the change's transaction (`console::webhooks::Audit`: `webhook.create`,
//! `webhook.update`, `webhook.rotateSecret`, `webhook.delete`, `webhook.replay`).

use super::admin_apps::typed;
use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::reply::{done, Created, Done, Reply};
use crate::AppState;
use axum::extract::{Path, RawQuery, State};
use ciam_core::console::audit::AuditAction;
use ciam_core::console::webhooks::Audit;
use ciam_core::webhooks::{self, log, queue, EndpointDetail, EndpointFields, WithSecret};
use ciam_core::{Error, Reason};
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// An endpoint's fields and the operator's reason.
// `events` arrives as raw JSON and is typed here (its error on its own field).
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EndpointBody {
    /// https (http only to localhost, 127.0.0.1 or [::1] under `ciam serve` without
    /// --webhooks-strict), no user info, no fragment, at most 2048 characters, no literal
    /// private, loopback, link-local or metadata address: WEBHOOK_URL_* reasons
    url: Option<String>,
    /// The event kinds it hears (at least one)
    #[cfg_attr(
        feature = "openapi",
        schemars(
            with = "Option<Vec<String>>",
            transform = ciam_core::webhooks::event_kinds_schema
        )
    )]
    events: Option<Value>,
    /// At most 500 characters
    description: Option<String>,
    /// A new secret, answered once; the previous one keeps signing for 24 hours
    rotate_secret: Option<bool>,
    /// `true` re-enables a disabled endpoint and forgets its failures; `false` disables it
    enabled: Option<bool>,
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

impl EndpointBody {
    fn fields(self) -> Result<(EndpointFields, String), Error> {
        Ok((
            EndpointFields {
                url: self.url,
                events: typed("events", self.events)?,
                description: self.description,
                rotate_secret: self.rotate_secret.unwrap_or(false),
                enabled: self.enabled,
            },
            self.reason,
        ))
    }
}

/// A new endpoint's fields (`url` and `events` required) and the operator's reason.
// Read as an `EndpointBody` (the same errors: `rotateSecret` and `enabled` are refused on a new
// endpoint); only its schema says what a creation takes.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(transform = new_endpoint_schema))]
#[serde(transparent)]
pub struct NewEndpoint(EndpointBody);

#[cfg(feature = "openapi")]
fn new_endpoint_schema(schema: &mut schemars::Schema) {
    if let Some(Value::Object(properties)) = schema.get_mut("properties") {
        properties.remove("rotateSecret");
        properties.remove("enabled");
    }
    super::admin_apps::require(schema, &["url", "events"]);
}

/// The operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// An app's webhook endpoints.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct WebhookEndpoints {
    endpoints: Vec<EndpointDetail>,
}

/// The webhook endpoints of a partner app
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). APPID_NOT_FOUND for an
/// unknown app. Never a secret.
///
/// Reasons: APPID_NOT_FOUND.
///
/// Round trips: 3 (authentication, the app, its endpoints).
pub async fn list(
    Op(_): Op,
    State(s): State<AppState>,
    Path(app_id): Path<String>,
) -> Result<Reply<WebhookEndpoints>, ApiError> {
    let endpoints = webhooks::list(&s.ciam, &app_id).await?;
    Ok(Reply(WebhookEndpoints { endpoints }))
}

/// Add a webhook endpoint to a partner app
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). At most 10 per app. The answer
/// carries the endpoint's signing secret, shown this once (stored sealed). Recorded in the audit
/// log (`webhook.create`, target: the app id, detail: the endpoint id) in the same transaction,
/// with the reason given (required, at most 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: APPID_NOT_FOUND, WEBHOOK_URL_FRAGMENT, WEBHOOK_URL_INVALID, WEBHOOK_URL_NOT_HTTPS,
/// WEBHOOK_URL_PRIVATE, WEBHOOK_URL_TOO_LONG, WEBHOOK_URL_USERINFO.
///
/// Round trips: 4 (authentication, the app, its endpoints, the transaction with the audit entry).
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(NewEndpoint(b)): Json<NewEndpoint>,
) -> Result<Created<WithSecret>, ApiError> {
    let (fields, reason) = b.fields()?;
    let audit = Audit::new(&s.ciam, &op, &app_id, &reason, &facts)?;
    if fields.rotate_secret || fields.enabled.is_some() {
        return Err(ApiError(Error::field(
            Reason::INVALID_PARAMETER,
            if fields.rotate_secret {
                "rotateSecret"
            } else {
                "enabled"
            },
            "新地址不接受此字段",
            "A new endpoint does not take this field",
        )));
    }
    let created = webhooks::create(&s.ciam, &app_id, fields, |endpoint_id| {
        Some(audit.entry(AuditAction::WebhookCreate, endpoint_id))
    })
    .await?;
    Ok(Reply(created))
}

/// One webhook endpoint
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). WEBHOOK_NOT_FOUND for
/// an unknown id.
///
/// Reasons: WEBHOOK_NOT_FOUND.
///
/// Round trips: 2.
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path((app_id, endpoint_id)): Path<(String, String)>,
) -> Result<Reply<EndpointDetail>, ApiError> {
    Ok(Reply(webhooks::get(&s.ciam, &app_id, &endpoint_id).await?))
}

/// Change, rotate, enable or disable a webhook endpoint
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Only the fields given change.
/// `rotateSecret`: a new secret, answered once; the previous one keeps signing for 24 hours (two
/// signatures in `webhook-signature` meanwhile). `enabled: true` re-enables a disabled endpoint and
/// forgets its failures; `false` disables it. Recorded in the audit log (`webhook.update` or
/// `webhook.rotateSecret`, target: the app id, detail: the endpoint id) in the same transaction,
/// with the reason given (required, at most 500 characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: WEBHOOK_NOT_FOUND, WEBHOOK_URL_FRAGMENT, WEBHOOK_URL_INVALID, WEBHOOK_URL_NOT_HTTPS,
/// WEBHOOK_URL_PRIVATE, WEBHOOK_URL_TOO_LONG, WEBHOOK_URL_USERINFO.
///
/// Round trips: 4 (authentication, the endpoint, the transaction with the audit entry, the
/// endpoint).
pub async fn update(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<EndpointBody>,
) -> Result<Reply<WithSecret>, ApiError> {
    let (fields, reason) = b.fields()?;
    let audit = Audit::new(&s.ciam, &op, &app_id, &reason, &facts)?;
    let action = if fields.rotate_secret {
        AuditAction::WebhookRotateSecret
    } else {
        AuditAction::WebhookUpdate
    };
    let entry = audit.entry(action, &endpoint_id);
    let updated = webhooks::update(&s.ciam, &app_id, &endpoint_id, fields, Some(entry)).await?;
    Ok(Reply(updated))
}

/// Remove a webhook endpoint
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). Its waiting deliveries are dropped;
/// its log expires on its own. Recorded in the audit log (`webhook.delete`, target: the app id,
/// detail: the endpoint id) in the same transaction, with the reason given (required, at most 500
/// characters: INVALID_PARAMETER on `reason`).
///
/// Reasons: WEBHOOK_NOT_FOUND.
///
/// With `{reason}`. Round trips: 2.
pub async fn remove(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<ReasonBody>,
) -> Result<Reply<Done>, ApiError> {
    let audit = Audit::new(&s.ciam, &op, &app_id, &b.reason, &facts)?;
    let entry = audit.entry(AuditAction::WebhookDelete, &endpoint_id);
    webhooks::delete(&s.ciam, &app_id, &endpoint_id, Some(entry)).await?;
    Ok(done())
}

/// The delivery log of a webhook endpoint
///
/// Console: the session's account must hold the role `viewer` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). One entry per attempt,
/// newest first, kept 30 days; `limit` (1-50, default 50), `next` is the following page's `after`.
/// `endpointId` `backchannel` or `logoutUrl`: the attempts of the app's sign-out notices to its
/// `backchannelLogoutUri` or `logoutUrl` (docs/partners.md §7).
///
/// Reasons: INVALID_PARAMETER, WEBHOOK_NOT_FOUND.
///
/// The query: `?after=&limit=`. Round trips: 3.
pub async fn deliveries(
    Op(_): Op,
    State(s): State<AppState>,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> Result<Reply<log::Page>, ApiError> {
    let mut after = None;
    let mut limit = None;
    for (k, v) in url::form_urlencoded::parse(q.unwrap_or_default().as_bytes()) {
        match k.as_ref() {
            "after" => after = Some(v.into_owned()),
            "limit" => {
                limit = Some(v.parse::<usize>().map_err(|_| {
                    Error::field(
                        Reason::INVALID_PARAMETER,
                        "limit",
                        "请输入 1 到 50 的数字",
                        "A number from 1 to 50",
                    )
                })?)
            }
            _ => {}
        }
    }
    let page = log::page(&s.ciam, &app_id, &endpoint_id, after, limit).await?;
    Ok(Reply(page))
}

/// One event (`eventId`) or a range (`from`, `to`), and the operator's reason.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplayBody {
    event_id: Option<String>,
    #[cfg_attr(feature = "openapi", schemars(with = "Option<i64>"))]
    from: Option<Value>,
    #[cfg_attr(feature = "openapi", schemars(with = "Option<i64>"))]
    to: Option<Value>,
    /// why (required; recorded in the audit log)
    #[cfg_attr(feature = "openapi", schemars(length(max = 500)))]
    reason: String,
}

/// The events queued again.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct ReplayQueued {
    event_ids: Vec<String>,
    /// A range over the cap (500 events a call): the `from` (Unix seconds) to send the next
    /// call with; absent when the range is done.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "openapi", schemars(with = "i64"))]
    next: Option<i64>,
}

/// Deliver events again to a webhook endpoint
///
/// Console: the session's account must hold the role `admin` or above (PERMISSION_DENIED), its
/// sign-in must have included a second factor (CONSOLE_MFA_REQUIRED), and the console must have
/// been used or a fresh proof made in the last 15 minutes (REAUTH_REQUIRED). Changes something:
/// needs a fresh proof at most 5 minutes old (REAUTH_REQUIRED). `{eventId}` (one event of the
/// endpoint's delivery log: NOT_FOUND when the log has none) or `{from, to}` (Unix seconds: the
/// events of the attempts logged in that range, at most 30 days): queued again with the same
/// `webhook-id` (receivers dedupe on it) and the body the app's consent covers now. Recorded in the
/// audit log (`webhook.replay`, target: the app id, detail: the endpoint id) in the same
/// transaction, with the reason given (required, at most 500 characters: INVALID_PARAMETER on
/// `reason`).
///
/// Reasons: NOT_FOUND, WEBHOOK_NOT_FOUND.
///
/// `{eventId}` or `{from, to}` (Unix seconds) and `reason`: the audit entry is queued with the
/// events; a range takes at most `queue::REPLAY_CAP` events a call, and `next` (a `from`) says
/// where the next call goes on. Round trips: 4 + 2 per event (+1 per 1,000 log entries).
pub async fn replay(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<ReplayBody>,
) -> Result<Reply<ReplayQueued>, ApiError> {
    let audit = Audit::new(&s.ciam, &op, &app_id, &b.reason, &facts)?;
    let from: Option<i64> = typed("from", b.from)?;
    let to: Option<i64> = typed("to", b.to)?;
    let what = match (b.event_id, from, to) {
        (Some(id), None, None) if !id.is_empty() && id.len() <= 64 => queue::Replay::Event(id),
        (None, Some(from), Some(to)) => queue::Replay::Range { from, to },
        _ => {
            return Err(ApiError(Error::field(
                Reason::INVALID_PARAMETER,
                "eventId",
                "请给出 eventId，或 from 与 to",
                "Give eventId, or from and to",
            )))
        }
    };
    let entry = audit.entry(AuditAction::WebhookReplay, &endpoint_id);
    let got = queue::replay_page(&s.ciam, &app_id, &endpoint_id, what, Some(entry)).await?;
    Ok(Reply(ReplayQueued {
        event_ids: got.queued,
        next: got.next,
    }))
}
