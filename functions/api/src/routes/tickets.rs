//! CAS-style tickets: the consent screen's Allow (`POST /auth/login/token`, which issues a ticket
//! for a registered service URL and remembers the decision) and the partner's server-side check
//! of that ticket (`GET /auth/login/token/verify`). The consent screen's context and the list of
//! remembered consents are consents.rs's.

use super::admin_apps::typed;
use crate::error::ApiError;
use crate::extract::{basic, Authed, Json, Params};
use crate::reply::Reply;
use crate::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use ciam_core::tickets::{self, Claims, Issued};
use serde::Deserialize;
use serde_json::Value;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TicketRequest {
    app_id: String,
    service_url: String,
    /// the scopes the consent screen showed (the context's `scopes`)
    #[cfg_attr(feature = "openapi", schemars(with = "Option<Vec<String>>"))]
    scopes: Option<Value>,
    /// the organization the person picked (an app whose organization setting asks for one and
    /// a person with several: the context's organization.choices)
    organization: Option<String>,
}

/// A ticket for a partner app
///
/// The signed-in user asks for a single-use ticket (5 minutes) for one of the app's registered
/// service URLs, matched exactly (INVALID_PARAMETER on serviceUrl otherwise). Also the consent
/// screen's Allow: the same transaction remembers the user's consent to the app's current scopes,
/// merged with the scopes allowed before. `scopes` (optional) are the scopes the consent screen
/// showed; when they differ, as a set, from the app's current scopes (the app changed while the
/// screen was open) the call is INVALID_PARAMETER on scopes and writes nothing. The ticket keeps
/// the scopes it was issued for. `redirect` is the service URL with `cTicket` appended. For an app
/// whose organization setting asks for one, the ticket carries the person's organization: the one
/// picked (`organization`, one of the consent context's `organization.choices`) or their only
/// one; several and none picked is INVALID_PARAMETER on organization; an app that requires one
/// and a person without one, or a pick that is not theirs, is ORG_NOT_FOUND; an organization whose
/// policy still needs something of the session (the context's choice's `need`:
/// docs/oidc.md "Organizations") is ORG_MFA_REQUIRED or ORG_METHOD_NOT_ALLOWED.
///
/// Reasons: APPID_NOT_FOUND, ORG_METHOD_NOT_ALLOWED, ORG_MFA_REQUIRED, ORG_NOT_FOUND.
///
/// `POST /auth/login/token`. Round trips: 3 (authentication, the app and the consent together, one
/// transaction).
pub async fn issue_ticket(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<TicketRequest>,
) -> Result<Reply<Issued>, ApiError> {
    let shown: Option<Vec<String>> = typed("scopes", b.scopes)?;
    let issued = tickets::issue(
        &s.ciam,
        &sess,
        &b.app_id,
        &b.service_url,
        shown.as_deref(),
        b.organization.as_deref(),
    )
    .await?;
    Ok(Reply(issued))
}

/// Redeem a ticket (server to server)
///
/// The app's credentials by query or HTTP Basic (appId:appSecret). A single validation attempt: the
/// ticket named is burned by this attempt whatever its outcome, wrong credentials included
/// (APPSECRET_ERROR, and the user must sign in to the app again); an unknown, expired, used, other
/// app's or other service's ticket is TICKET_NOT_FOUND. The claims are limited to the scopes the
/// ticket was issued for; phone and email are in full. A ticket issued with an organization adds
/// orgId and orgRoles (the person's roles in it now); if the person is no longer an active
/// member of it (removed, or the organization suspended) the ticket is TICKET_NOT_FOUND.
///
/// Reasons: APPSECRET_ERROR, INVALID_PARAMETER, TICKET_NOT_FOUND.
///
/// `GET /auth/login/token/verify?appId&appSecret&cTicket&serviceUrl` (or the app's credentials by
/// HTTP Basic): the user's claims, once per ticket; INVALID_PARAMETER for a missing parameter
/// (`Params`). Round trips: 3.
pub async fn verify_ticket(
    State(s): State<AppState>,
    headers: HeaderMap,
    q: Params,
) -> Result<Reply<Claims>, ApiError> {
    let (app_id, secret) = match basic(&headers).flatten() {
        Some(creds) => creds,
        None => (q.get("appId")?, q.get("appSecret")?),
    };
    let ticket = q.get("cTicket")?;
    let service = q.get("serviceUrl")?;
    let claims = tickets::verify(&s.ciam, &app_id, &secret, &ticket, &service).await?;
    Ok(Reply(claims))
}
