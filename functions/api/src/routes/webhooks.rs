//! Webhook endpoints of a partner app (`/app/{appId}/webhooks...`, admins only, like the rest of
//! the registry; docs/events-design.md §3). Changes are recorded in the console's audit log as
//! the registry's own (`webhook.create`, `webhook.update`, `webhook.rotateSecret`,
//! `webhook.delete`, `webhook.replay`; target: the app id, detail: the endpoint id).

use super::apps::{admin_change, audited, typed};
use crate::error::ApiError;
use crate::extract::{Authed, Facts, Json};
use crate::AppState;
use axum::extract::{Path, RawQuery, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::webhooks::{self, queue, EndpointFields};
use ciam_core::{Error, Reason};
use serde::Deserialize;
use serde_json::{json, Value};

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EndpointBody {
    url: Option<String>,
    events: Option<Value>,
    description: Option<String>,
    rotate_secret: Option<bool>,
    enabled: Option<bool>,
}

impl EndpointBody {
    fn fields(self) -> Result<EndpointFields, Error> {
        Ok(EndpointFields {
            url: self.url,
            events: typed("events", self.events)?,
            description: self.description,
            rotate_secret: self.rotate_secret.unwrap_or(false),
            enabled: self.enabled,
        })
    }
}

/// `GET /app/{appId}/webhooks`. Round trips: 3 (authentication, the app, its endpoints).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(app_id): Path<String>,
) -> ApiResult {
    let endpoints = webhooks::list(&s.ciam, &sess, &app_id).await?;
    Ok(axum::Json(json!({ "endpoints": endpoints })).into_response())
}

/// `POST /app/{appId}/webhooks`: its secret is in this answer only. Round trips: 5.
pub async fn create(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path(app_id): Path<String>,
    Json(b): Json<EndpointBody>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    let fields = b.fields()?;
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
    let created = webhooks::create(&s.ciam, &sess, &app_id, fields).await?;
    let detail = Some(created.endpoint.endpoint_id.clone());
    audited(&s, &op, "webhook.create", &app_id, detail, &facts).await?;
    Ok((StatusCode::CREATED, axum::Json(created)).into_response())
}

/// `GET /app/{appId}/webhooks/{endpointId}`. Round trips: 2.
pub async fn get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path((app_id, endpoint_id)): Path<(String, String)>,
) -> ApiResult {
    Ok(axum::Json(webhooks::get(&s.ciam, &sess, &app_id, &endpoint_id).await?).into_response())
}

/// `PATCH /app/{appId}/webhooks/{endpointId}`: fields, `rotateSecret` (the new secret in this
/// answer only), `enabled`. Round trips: 4.
pub async fn update(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<EndpointBody>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    let fields = b.fields()?;
    let action = if fields.rotate_secret {
        "webhook.rotateSecret"
    } else {
        "webhook.update"
    };
    let updated = webhooks::update(&s.ciam, &sess, &app_id, &endpoint_id, fields).await?;
    audited(&s, &op, action, &app_id, Some(endpoint_id), &facts).await?;
    Ok(axum::Json(updated).into_response())
}

/// `DELETE /app/{appId}/webhooks/{endpointId}`. Round trips: 3.
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
) -> ApiResult {
    let op = admin_change(&sess)?;
    webhooks::delete(&s.ciam, &sess, &app_id, &endpoint_id).await?;
    audited(
        &s,
        &op,
        "webhook.delete",
        &app_id,
        Some(endpoint_id),
        &facts,
    )
    .await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// `GET /app/{appId}/webhooks/{endpointId}/deliveries?after=&limit=`: the delivery log, newest
/// first. Round trips: 3.
pub async fn deliveries(
    State(s): State<AppState>,
    Authed(sess): Authed,
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
    let page = webhooks::log::page(&s.ciam, &sess, &app_id, &endpoint_id, after, limit).await?;
    Ok(axum::Json(page).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ReplayBody {
    event_id: Option<String>,
    from: Option<Value>,
    to: Option<Value>,
}

/// `POST /app/{appId}/webhooks/{endpointId}/replay` `{eventId}` or `{from, to}` (Unix seconds):
/// queues the events again with the same `webhook-id`. Round trips: 4 + 2 per event.
pub async fn replay(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Facts(facts): Facts,
    Path((app_id, endpoint_id)): Path<(String, String)>,
    Json(b): Json<ReplayBody>,
) -> ApiResult {
    let op = admin_change(&sess)?;
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
    let queued = queue::replay(&s.ciam, &sess, &app_id, &endpoint_id, what).await?;
    audited(
        &s,
        &op,
        "webhook.replay",
        &app_id,
        Some(endpoint_id),
        &facts,
    )
    .await?;
    Ok(axum::Json(json!({ "eventIds": queued })).into_response())
}
