//! Two-factor routes: enrolment, fresh proofs, backup codes, and the sign-in second step.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json};
use crate::AppState;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use ciam_core::totp;
use serde::Deserialize;
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

/// `GET /auth/totp/url`: the otpauth:// URI to scan, only while two-factor is off.
/// Round trips: 2 (authentication, the pending secret) or 1 while a pending one is fresh.
pub async fn url(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(json!({ "url": totp::enrollment_uri(&s.ciam, &sess).await? })).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Code {
    code: String,
}

/// `POST /auth/totp/enable`: confirms enrolment; answers the 10 backup codes, shown once.
/// Round trips: 2 (authentication, one transaction).
pub async fn enable(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Code>,
) -> ApiResult {
    let codes = totp::enable(&s.ciam, &sess, &b.code, &client).await?;
    Ok(axum::Json(json!({ "backupCodes": codes })).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Proof {
    code: Option<String>,
    password: Option<String>,
}

/// `POST /auth/totp/verify`: a fresh proof of identity (the authenticator code when two-factor
/// is on, else the password), required by sensitive changes for 5 minutes.
/// Round trips: 2 or 3 (authentication, the step or nothing, the session).
pub async fn verify(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<Proof>,
) -> ApiResult {
    totp::verify_fresh(&s.ciam, &sess, b.code.as_deref(), b.password.as_deref()).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

/// `POST /auth/totp/backupCodes`: new codes; the old ones stop working at once.
/// Round trips: 2 (authentication, one transaction) plus tidying of the old items.
pub async fn backup_codes(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
) -> ApiResult {
    let codes = totp::regenerate(&s.ciam, &sess, &client).await?;
    Ok(axum::Json(json!({ "backupCodes": codes })).into_response())
}

/// `POST /auth/totp/disable`. Round trips: 2 plus tidying of the backup codes.
pub async fn disable(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
) -> ApiResult {
    totp::disable(&s.ciam, &sess, &client).await?;
    Ok(axum::Json(json!({ "ok": true })).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SecondStep {
    challenge: String,
    code: String,
}

/// `POST /auth/login/totp {challenge, code}`. Round trips: 3 (challenge, user, transaction).
pub async fn login_totp(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<SecondStep>,
) -> ApiResult {
    Ok(crate::sign_in::signed_in(
        totp::login_totp(&s.ciam, &b.challenge, &b.code, &client).await?,
    ))
}

/// `POST /auth/unlockCode {challenge, code}`: sign in with an 8-digit backup code.
/// Round trips: 4 (challenge, user, backup code, transaction).
pub async fn unlock_code(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<SecondStep>,
) -> ApiResult {
    Ok(crate::sign_in::signed_in(
        totp::login_backup(&s.ciam, &b.challenge, &b.code, &client).await?,
    ))
}
