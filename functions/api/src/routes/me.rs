//! The owner's view of their account: profile, privacy choices and history, sessions, activity,
//! apps.

use crate::error::ApiError;
use crate::extract::{Authed, Json, Lang};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use ciam_core::accounts::{self, ProfilePatch};
use ciam_core::{me, Reason};
use serde::Deserialize;
use serde_json::json;
use std::collections::BTreeMap;

type ApiResult = Result<Response, ApiError>;

/// `GET /auth/info`. Round trips: 1 (session and user together; +1 idle refresh a minute).
pub async fn info(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(sess.user.info(&s.ciam)).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct InfoPatch {
    company: Option<String>,
    duty: Option<String>,
    address: Option<String>,
    display_name: Option<String>,
    country: Option<String>,
}

/// `PATCH /auth/info`. Round trips: 2 (authentication, one conditional update).
pub async fn update_info(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<InfoPatch>,
) -> ApiResult {
    let patch = ProfilePatch {
        company: b.company,
        duty: b.duty,
        address: b.address,
        display_name: b.display_name,
        country: b.country,
    };
    Ok(axum::Json(accounts::update_info(&s.ciam, &sess, patch).await?).into_response())
}

/// `GET /auth/privacy`. Round trips: 2 (authentication, which loads the settings; the history).
pub async fn privacy(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(me::privacy(&s.ciam, &sess).await?).into_response())
}

/// `PATCH /auth/privacy {analytics?, marketing?}`. Round trips: 3.
pub async fn set_privacy(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<BTreeMap<String, bool>>,
) -> ApiResult {
    Ok(axum::Json(me::set_privacy(&s.ciam, &sess, b).await?).into_response())
}

/// `GET /auth/sessions`. Round trips: 2.
pub async fn sessions(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(json!({ "sessions": me::sessions(&s.ciam, &sess).await? })).into_response())
}

/// `DELETE /auth/sessions/{id}`. Round trips: 3.
pub async fn revoke_session(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
) -> ApiResult {
    me::revoke_session(&s.ciam, &sess, &id).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// `GET /auth/activity`. Round trips: 2.
pub async fn activity(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(json!({ "events": me::activity(&s.ciam, &sess).await? })).into_response())
}

/// `GET /auth/apps`: the 2 most recent apps. Round trips: 2.
pub async fn recent_apps(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
) -> ApiResult {
    Ok(axum::Json(json!({ "apps": me::recent_apps(&s.ciam, &sess, lang).await? })).into_response())
}

/// `GET /app/language/{language}`: common and recommended apps. Round trips: 1.
pub async fn apps_in(State(s): State<AppState>, Path(language): Path<String>) -> ApiResult {
    let lang = ciam_core::Lang::parse_tag(&language).ok_or_else(|| {
        ApiError(ciam_core::Error::field(
            Reason::INVALID_PARAMETER,
            "language",
            "只支持 zh-CN 或 en-US",
            "Use zh-CN or en-US",
        ))
    })?;
    Ok(axum::Json(json!({ "apps": me::apps_in(&s.ciam, lang).await? })).into_response())
}
