//! Passkeys (WebAuthn), docs/passkeys-design.md §3. The ceremony handlers (options and finish
//! of registration, sign-in, the two-factor step and the fresh proof) verify WebAuthn answers, so
//! they link the relying-party crate: they are the rows of `super::CEREMONY_ROUTES`, served by
//! the second Lambda binary `passkeys`. Listing, renaming and removing passkeys only touch the
//! table and stay in `super::ROUTES` (binary `bootstrap`), which never names them.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json};
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::passkey::{ceremony, items};
use serde::Deserialize;
use serde_json::{json, Value};

type ApiResult = Result<Response, ApiError>;

fn json(v: impl serde::Serialize) -> ApiResult {
    Ok(axum::Json(v).into_response())
}

/// `GET /auth/passkeys`: the account's passkeys, newest first.
/// Round trips: 2 (authentication, the query).
pub async fn list(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    json(json!({ "passkeys": items::list(&s.ciam, &sess).await? }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Rename {
    name: String,
}

/// `PATCH /auth/passkeys/{id}`. Round trips: 2 (authentication, the conditional update).
pub async fn rename(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
    Json(b): Json<Rename>,
) -> ApiResult {
    let p = items::rename(&s.ciam, &sess, &id, &b.name).await?;
    json(json!({ "id": p.id, "name": p.name }))
}

/// `DELETE /auth/passkeys/{id}` (fresh proof). Round trips: 3 (authentication, the
/// credential, the transaction).
pub async fn remove(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Path(id): Path<String>,
) -> ApiResult {
    items::remove(&s.ciam, &sess, &id, &client).await?;
    Ok(StatusCode::NO_CONTENT.into_response())
}

/// An options request with nothing in it.
#[derive(Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// `POST /auth/passkeys/options` (fresh proof). Round trips: 2 (authentication, the account's
/// passkeys).
pub async fn register_options(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(_): Json<Empty>,
) -> ApiResult {
    json(ceremony::register_options(&s.ciam, &sess).await?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Register {
    passkey_challenge: String,
    credential: Value,
    #[serde(default)]
    name: Option<String>,
}

/// `POST /auth/passkeys` (fresh proof). Round trips: 2 (authentication, the transaction).
pub async fn register(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Register>,
) -> ApiResult {
    let r = ceremony::register(
        &s.ciam,
        &sess,
        &b.passkey_challenge,
        &b.credential,
        b.name.as_deref(),
        &client,
    )
    .await?;
    json(r)
}

#[derive(Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoginOptions {
    #[serde(default)]
    app_id: Option<String>,
}

/// `POST /auth/login/passkey/options`. Round trips: 0.
pub async fn login_options(State(s): State<AppState>, Json(b): Json<LoginOptions>) -> ApiResult {
    json(ceremony::login_options(&s.ciam, b.app_id.as_deref())?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Assertion {
    passkey_challenge: String,
    credential: Value,
}

/// `POST /auth/login/passkey`. Round trips: 2 (user, credential and app in one batch; the
/// transaction).
pub async fn login(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<Assertion>,
) -> ApiResult {
    Ok(crate::sign_in::signed_in(
        ceremony::login(&s.ciam, &b.passkey_challenge, &b.credential, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    challenge: String,
    /// The embedded sign-in's app: a framed assertion from its frameOrigins is accepted.
    #[serde(default)]
    app_id: Option<String>,
}

/// `POST /auth/login/passkey/mfa/options`. Round trips: 3 (the challenge, its user, the
/// passkeys).
pub async fn mfa_options(State(s): State<AppState>, Json(b): Json<Step>) -> ApiResult {
    json(ceremony::mfa_options(&s.ciam, &b.challenge, b.app_id.as_deref()).await?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StepAssertion {
    challenge: String,
    passkey_challenge: String,
    credential: Value,
}

/// `POST /auth/login/passkey/mfa`. Round trips: 4 (the challenge, its user, the credential, the
/// transaction).
pub async fn login_mfa(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<StepAssertion>,
) -> ApiResult {
    Ok(crate::sign_in::signed_in(
        ceremony::login_mfa(
            &s.ciam,
            &b.challenge,
            &b.passkey_challenge,
            &b.credential,
            &client,
        )
        .await?,
    ))
}

/// `POST /auth/reauth/passkey/options`. Round trips: 2 (authentication, the passkeys).
pub async fn reauth_options(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(_): Json<Empty>,
) -> ApiResult {
    json(ceremony::reauth_options(&s.ciam, &sess).await?)
}

/// `POST /auth/reauth/passkey`. Round trips: 3 (authentication, the credential, the
/// transaction).
pub async fn reauth(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Assertion>,
) -> ApiResult {
    ceremony::reauth(&s.ciam, &sess, &b.passkey_challenge, &b.credential, &client).await?;
    json(json!({ "ok": true }))
}
