//! CAS-style tickets: the consent screen's Allow (`POST /auth/login/token`, which issues a ticket
//! for a registered service URL and remembers the decision) and the partner's server-side check
//! of that ticket (`GET /auth/login/token/verify`). The consent screen's context and the list of
//! remembered consents are consents.rs's.

use super::admin_apps::typed;
use crate::error::ApiError;
use crate::extract::{basic, Authed, Json, Params};
use crate::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use ciam_core::tickets;
use serde::Deserialize;
use serde_json::Value;

type ApiResult = Result<Response, ApiError>;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TicketRequest {
    app_id: String,
    service_url: String,
    /// The scopes the consent screen showed; refused (INVALID_PARAMETER `scopes`) when they are
    /// no longer the app's scopes.
    scopes: Option<Value>,
}

/// `POST /auth/login/token`: a ticket for a registered service URL; also the consent screen's
/// Allow (the decision is remembered in the same transaction). Round trips: 3
/// (authentication, the app and the consent together, one transaction).
pub async fn issue_ticket(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<TicketRequest>,
) -> ApiResult {
    let shown: Option<Vec<String>> = typed("scopes", b.scopes)?;
    let issued =
        tickets::issue(&s.ciam, &sess, &b.app_id, &b.service_url, shown.as_deref()).await?;
    Ok(axum::Json(issued).into_response())
}

/// `GET /auth/login/token/verify?appId&appSecret&cTicket&serviceUrl` (or the app's credentials
/// by HTTP Basic): the user's claims, once per ticket. Round trips: 3.
pub async fn verify_ticket(State(s): State<AppState>, headers: HeaderMap, q: Params) -> ApiResult {
    let (app_id, secret) = match basic(&headers).flatten() {
        Some(creds) => creds,
        None => (q.get("appId")?, q.get("appSecret")?),
    };
    let ticket = q.get("cTicket")?;
    let service = q.get("serviceUrl")?;
    let claims = tickets::verify(&s.ciam, &app_id, &secret, &ticket, &service).await?;
    Ok(axum::Json(claims).into_response())
}
