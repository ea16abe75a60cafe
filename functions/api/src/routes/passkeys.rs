//! Passkeys (WebAuthn), docs/passkeys-design.md §3. The ceremony handlers (options and finish
//! of registration, sign-in, the two-factor step and the fresh proof) verify WebAuthn answers, so
//! they link the relying-party crate: they are the rows of `super::CEREMONY_ROUTES`, served by
//! the second Lambda binary `passkeys`. Listing, renaming and removing passkeys only touch the
//! table and stay in `super::ROUTES` (binary `bootstrap`), which never names them.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json};
use crate::reply::{done, Done, Reply};
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use ciam_core::passkey::ceremony::{self, Registered};
use ciam_core::passkey::items::{self, PasskeyView};
use serde::{Deserialize, Serialize};
use serde_json::Value;

type ApiResult = Result<Response, ApiError>;

/// The options of a ceremony: `ceremony::Options` carries the relying-party crate's
/// `publicKey`, whose W3C shape is the source's `PasskeyOptions` (docs/openapi/source.json).
fn json(v: impl serde::Serialize) -> ApiResult {
    Ok(axum::Json(v).into_response())
}

/// A WebAuthn credential in a request: the source's hand-written `PasskeyCredential` (the W3C
/// shape; its inner fields are the relying-party crate's to judge).
#[cfg(feature = "openapi")]
fn credential_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({ "$ref": "#/components/schemas/PasskeyCredential" })
}

/// The account's passkeys.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct Passkeys {
    /// Newest first.
    passkeys: Vec<PasskeyView>,
}

/// The account's passkeys
///
/// Newest first. At most 10.
///
/// Reasons: none.
///
/// `GET /auth/passkeys`. Round trips: 2 (authentication, the query).
pub async fn list(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Passkeys>, ApiError> {
    let passkeys = items::list(&s.ciam, &sess).await?;
    Ok(Reply(Passkeys { passkeys }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Rename {
    name: String,
}

/// A renamed passkey.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct RenamedPasskey {
    id: String,
    name: String,
}

/// Rename a passkey
///
/// 1 to 64 characters. PASSKEY_NOT_FOUND for an unknown id.
///
/// Reasons: PASSKEY_NOT_FOUND.
///
/// `PATCH /auth/passkeys/{id}`. Round trips: 2 (authentication, the conditional update).
pub async fn rename(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
    Json(b): Json<Rename>,
) -> Result<Reply<RenamedPasskey>, ApiError> {
    let p = items::rename(&s.ciam, &sess, &id, &b.name).await?;
    Ok(Reply(RenamedPasskey {
        id: p.id,
        name: p.name,
    }))
}

/// Remove a passkey
///
/// Needs a fresh proof (REAUTH_REQUIRED). The passkey no longer signs in. PASSKEY_NOT_FOUND for an
/// unknown id. Recorded in the security activity.
///
/// Reasons: PASSKEY_NOT_FOUND, REAUTH_REQUIRED.
///
/// `DELETE /auth/passkeys/{id}` (fresh proof), 204 No Content (the source's). Round trips: 3
/// (authentication, the credential, the transaction).
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
#[cfg_attr(feature = "openapi", schemars(extend("properties" = {})))]
#[serde(deny_unknown_fields)]
pub struct Empty {}

/// Options to register a passkey
///
/// Needs a fresh proof (REAUTH_REQUIRED). `excludeCredentials` lists the account's passkeys, so the
/// browser refuses an authenticator that has one. PASSKEY_LIMIT at 10; PERMISSION_DENIED for staff
/// accounts; PASSKEY_UNAVAILABLE (503) when the site has no usable RP ID.
///
/// Reasons: PASSKEY_LIMIT, PASSKEY_UNAVAILABLE, PERMISSION_DENIED, REAUTH_REQUIRED.
///
/// `POST /auth/passkeys/options` (fresh proof). Untyped: the options are the relying-party crate's
/// (the source's `PasskeyOptions`). Round trips: 2 (authentication, the account's passkeys).
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
    #[cfg_attr(feature = "openapi", schemars(schema_with = "credential_schema"))]
    credential: Value,
    #[serde(default)]
    name: Option<String>,
}

/// Register a passkey
///
/// Needs a fresh proof (REAUTH_REQUIRED). Verifies the browser's answer to the options of POST
/// /auth/passkeys/options: a discoverable credential with user verification, for this site's RP ID
/// and origin. `name` (1 to 64 characters) defaults to the device (e.g. "Chrome on Windows").
/// PASSKEY_EXISTS when the credential is registered (to any account), PASSKEY_LIMIT at 10,
/// PASSKEY_CHALLENGE_EXPIRED for a used, expired or foreign challenge, PASSKEY_VERIFY_FAILED when
/// the answer does not verify, PERMISSION_DENIED for staff accounts. Recorded in the security
/// activity.
///
/// Reasons: PASSKEY_CHALLENGE_EXPIRED, PASSKEY_EXISTS, PASSKEY_LIMIT, PASSKEY_UNAVAILABLE,
/// PASSKEY_VERIFY_FAILED, PERMISSION_DENIED, REAUTH_REQUIRED.
///
/// `POST /auth/passkeys` (fresh proof). AUTHORIZATION_FAILED also when the session changed under
/// the transaction. Round trips: 2 (authentication, the transaction).
pub async fn register(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Register>,
) -> Result<Reply<Registered>, ApiError> {
    let r = ceremony::register(
        &s.ciam,
        &sess,
        &b.passkey_challenge,
        &b.credential,
        b.name.as_deref(),
        &client,
    )
    .await?;
    Ok(Reply(r))
}

#[derive(Deserialize, Default)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct LoginOptions {
    #[serde(default)]
    app_id: Option<String>,
}

/// Options to sign in with a passkey
///
/// A discoverable request (no `allowCredentials`): use it for a "Sign in with a passkey" button or
/// for conditional mediation (the browser's autofill). The embedded sign-in sends its `appId`: the
/// answer may then come from a frame on one of that app's `frameOrigins`. Writes nothing.
/// PASSKEY_UNAVAILABLE (503) when the site has no usable RP ID (no public URL, or an IP address).
///
/// Reasons: PASSKEY_UNAVAILABLE.
///
/// `POST /auth/login/passkey/options`. Untyped: the options are the relying-party crate's (the
/// source's `PasskeyOptions`). Round trips: 0.
pub async fn login_options(State(s): State<AppState>, Json(b): Json<LoginOptions>) -> ApiResult {
    json(ceremony::login_options(&s.ciam, b.app_id.as_deref())?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Assertion {
    passkey_challenge: String,
    #[cfg_attr(feature = "openapi", schemars(schema_with = "credential_schema"))]
    credential: Value,
}

/// Sign in with a passkey
///
/// The answer to the options of POST /auth/login/passkey/options. User verification is required, so
/// a passkey is two factors: never NEED_TOTP_VERIFY. Continue as after a password sign-in
/// (serviceUrl, consent, tickets, OpenID Connect). PASSKEY_NOT_FOUND for an unknown or removed
/// passkey or a deactivated account, PASSKEY_CHALLENGE_EXPIRED for a used, expired or foreign
/// challenge, PASSKEY_VERIFY_FAILED when the answer does not verify (another site, origin or frame,
/// no user verification, a signature counter that went back); those count on the account lock
/// (VERIFICATION_ATTEMPT_CODE_LIMIT, 423, with the unlock time), a suspended account's alike.
/// ACCOUNT_SUSPENDED (403, no session) only when a suspended account's passkey verified.
///
/// Reasons: PASSKEY_CHALLENGE_EXPIRED, PASSKEY_NOT_FOUND, PASSKEY_UNAVAILABLE,
/// PASSKEY_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT, ACCOUNT_SUSPENDED.
///
/// `POST /auth/login/passkey`. Round trips: 2 (user, credential and app in one batch; the
/// transaction).
pub async fn login(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<Assertion>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
        ceremony::login(&s.ciam, &b.passkey_challenge, &b.credential, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Step {
    challenge: String,
    /// The embedded sign-in's app (issue 23): the finish then accepts an assertion framed by one
    /// of that app's frameOrigins
    #[serde(default)]
    app_id: Option<String>,
}

/// Options for a passkey as the two-factor step
///
/// After NEED_TOTP_VERIFY: `challenge` is the one that answer carried. `allowCredentials` lists the
/// account's passkeys. PASSKEY_NOT_FOUND when the account has none (offer the authenticator or a
/// backup code); PASSKEY_CHALLENGE_EXPIRED when the sign-in challenge is used or expired (sign in
/// again).
///
/// Reasons: PASSKEY_CHALLENGE_EXPIRED, PASSKEY_NOT_FOUND, PASSKEY_UNAVAILABLE,
/// VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// `POST /auth/login/passkey/mfa/options`. Untyped: the options are the relying-party crate's (the
/// source's `PasskeyOptions`). Round trips: 3 (the challenge, its user, the passkeys).
pub async fn mfa_options(State(s): State<AppState>, Json(b): Json<Step>) -> ApiResult {
    json(ceremony::mfa_options(&s.ciam, &b.challenge, b.app_id.as_deref()).await?)
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct StepAssertion {
    challenge: String,
    passkey_challenge: String,
    #[cfg_attr(feature = "openapi", schemars(schema_with = "credential_schema"))]
    credential: Value,
}

/// Finish the two-factor step with a passkey
///
/// The answer to the options of POST /auth/login/passkey/mfa/options, with the sign-in's
/// `challenge`. Issues the session as an authenticator code would. PASSKEY_VERIFY_FAILED counts on
/// the account lock (VERIFICATION_ATTEMPT_CODE_LIMIT at the 5th).
///
/// Reasons: PASSKEY_CHALLENGE_EXPIRED, PASSKEY_NOT_FOUND, PASSKEY_UNAVAILABLE,
/// PASSKEY_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// `POST /auth/login/passkey/mfa`. Round trips: 4 (the challenge, its user, the credential, the
/// transaction).
pub async fn login_mfa(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<StepAssertion>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
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

/// Options for a fresh proof by passkey
///
/// Sensitive changes need a proof of identity from the last 5 minutes (REAUTH_REQUIRED); a passkey
/// is one, as the password or the authenticator code (POST /auth/totp/verify). PASSKEY_NOT_FOUND
/// when the account has none.
///
/// Reasons: PASSKEY_NOT_FOUND, PASSKEY_UNAVAILABLE.
///
/// `POST /auth/reauth/passkey/options`. Untyped: the options are the relying-party crate's (the
/// source's `PasskeyOptions`). Round trips: 2 (authentication, the passkeys).
pub async fn reauth_options(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(_): Json<Empty>,
) -> ApiResult {
    json(ceremony::reauth_options(&s.ciam, &sess).await?)
}

/// A fresh proof of identity by passkey
///
/// The answer to the options of POST /auth/reauth/passkey/options. The session then counts as
/// freshly proven for 5 minutes. PASSKEY_VERIFY_FAILED counts on the account lock.
///
/// Reasons: PASSKEY_CHALLENGE_EXPIRED, PASSKEY_NOT_FOUND, PASSKEY_UNAVAILABLE,
/// PASSKEY_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// `POST /auth/reauth/passkey`. Round trips: 3 (authentication, the credential, the transaction).
pub async fn reauth(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Assertion>,
) -> Result<Reply<Done>, ApiError> {
    ceremony::reauth(&s.ciam, &sess, &b.passkey_challenge, &b.credential, &client).await?;
    Ok(done())
}
