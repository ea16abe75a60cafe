//! Webhook endpoints of a partner app in the console (`/admin/apps/{appId}/webhooks...`,
//! docs/events-design.md §3, docs/console-design.md §5): each handler takes `extract::Op` first
//! (its row's role; a fresh proof for a change); each change carries a `reason` and its audit
//! entry is written in the change's transaction (`console::webhooks::Audit`: `webhook.create`,
//! `webhook.update`, `webhook.rotateSecret`, `webhook.delete`, `webhook.replay`).

use super::admin_apps::typed;
use crate::error::ApiError;
use crate::extract::{Facts, Json, Op};
use crate::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::console::webhooks::Audit;
use ciam_core::webhooks::{self, queue, EndpointFields};
use ciam_core::{Error, Reason};
use serde::Deserialize;
use serde_json::{json, Value};

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EndpointBody {
    url: Option<String>,
    events: Option<Value>,
    description: Option<String>,
    rotate_secret: Option<bool>,
    enabled: Option<bool>,
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

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ReasonBody {
    reason: String,
}

/// `GET /admin/apps/{appId}/webhooks`. Round trips: 3 (authentication, the app, its endpoints).
pub async fn list(Op(_): Op, State(s): State<AppState>, Path(app_id): Path<String>) -> ApiResult {
    let endpoints = webhooks::list(&s.ciam, &app_id).await?;
    Ok(axum::Json(json!({ "endpoints": endpoints })).into_response())
}

/// `POST /admin/apps/{appId}/webhooks`: its secret is in this answer only. Round trips: 4
/// (authentication, the app, its endpoints, the transaction with the audit entry).
pub async fn create(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<EndpointBody>,
) -> ApiResult {
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
        Some(audit.entry("webhook.create", endpoint_id))
    })
    .await?;
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// `GET /admin/apps/{appId}/webhooks/{endpointId}`. Round trips: 2.
pub async fn get(
    Op(_): Op,
    State(s): State<AppState>,
    Path((app_id, endpoint_id)): Path<(String, String)>,
) -> ApiResult {
    Ok(axum::Json(webhooks::get(&s.ciam, &app_id, &endpoint_id).await?).into_response())
}

/// `PATCH /admin/apps/{appId}/webhooks/{endpointId}`: fields, `rotateSecret` (the new secret in
/// this answer only), `enabled`. Round trips: 4 (authentication, the endpoint, the transaction
/// with the audit entry, the endpoint).
pub async fn update(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<EndpointBody>,
) -> ApiResult {
    let (fields, reason) = b.fields()?;
    let audit = Audit::new(&s.ciam, &op, &app_id, &reason, &facts)?;
    let action = if fields.rotate_secret {
        "webhook.rotateSecret"
    } else {
        "webhook.update"
    };
    let entry = audit.entry(action, &endpoint_id);
    let updated = webhooks::update(&s.ciam, &app_id, &endpoint_id, fields, Some(entry)).await?;
    Ok(axum::Json(updated).into_response())
}

/// `DELETE /admin/apps/{appId}/webhooks/{endpointId}` with `{reason}`. Round trips: 2.
pub async fn remove(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<ReasonBody>,
) -> ApiResult {
    let audit = Audit::new(&s.ciam, &op, &app_id, &b.reason, &facts)?;
    let entry = audit.entry("webhook.delete", &endpoint_id);
    webhooks::delete(&s.ciam, &app_id, &endpoint_id, Some(entry)).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// `GET /admin/apps/{appId}/webhooks/{endpointId}/deliveries?after=&limit=`: the delivery log,
/// newest first. Round trips: 3.
pub async fn deliveries(
    Op(_): Op,
    State(s): State<AppState>,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    RawQuery(q): RawQuery,
) -> ApiResult {
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
    let page = webhooks::log::page(&s.ciam, &app_id, &endpoint_id, after, limit).await?;
    Ok(axum::Json(page).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplayBody {
    event_id: Option<String>,
    from: Option<Value>,
    to: Option<Value>,
    reason: String,
}

/// `POST /admin/apps/{appId}/webhooks/{endpointId}/replay` `{eventId}` or `{from, to}` (Unix
/// seconds) and `reason`: queues the events again with the same `webhook-id`, the audit entry
/// with them; a range takes at most `queue::REPLAY_CAP` events a call, and `next` (a `from`)
/// says where the next call goes on. Round trips: 4 + 2 per event (+1 per 1,000 log entries).
pub async fn replay(
    Op(op): Op,
    State(s): State<AppState>,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<ReplayBody>,
) -> ApiResult {
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
    let entry = audit.entry("webhook.replay", &endpoint_id);
    let got = queue::replay_page(&s.ciam, &app_id, &endpoint_id, what, Some(entry)).await?;
    let mut answer = json!({ "eventIds": got.queued });
    if let Some(next) = got.next {
        answer["next"] = json!(next);
    }
    Ok(axum::Json(answer).into_response())
}
