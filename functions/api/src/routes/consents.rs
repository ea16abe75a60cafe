//! Remembered consents: the consent screen's context, and the personal centre's list and
//! revocation. Allow itself is `POST /auth/login/token` (tickets.rs), which remembers the decision.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Lang, Params};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use ciam_core::consents;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

/// `GET /auth/consent?appId&serviceUrl`: what the consent screen shows (the app's localised name,
/// logo and scopes, whether the user already allowed them, and where Cancel leads). Round trips:
/// 2 (authentication, the app and the consent together).
pub async fn context(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    q: Params,
) -> ApiResult {
    let (app_id, service_url) = (q.get("appId")?, q.get("serviceUrl")?);
    let ctx = consents::context(&s.ciam, &sess, &app_id, &service_url, lang).await?;
    Ok(axum::Json(ctx).into_response())
}

/// `GET /auth/consents`: the apps the user allowed, newest first. Round trips: 3
/// (authentication, the consents, their apps together).
pub async fn list(State(s): State<AppState>, Authed(sess): Authed, Lang(lang): Lang) -> ApiResult {
    let apps = consents::list(&s.ciam, &sess, lang).await?;
    Ok(axum::Json(json!({ "apps": apps })).into_response())
}

/// `DELETE /auth/consents/{appId}`: forgets the decision and records it in the security
/// activity; idempotent. Round trips: 2 (authentication, one transaction).
pub async fn revoke(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Path(app_id): Path<String>,
) -> ApiResult {
    consents::revoke(&s.ciam, &sess, &app_id, &client).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}
