//! Passkeys (WebAuthn), docs/passkeys-design.md §3. The ceremony routes (options and finish of
//! registration, sign-in, the two-factor step and the fresh proof) verify WebAuthn answers, so
//! they link the relying-party crate: they are the rows of `CEREMONY_ROUTES`, served by the
//! second Lambda binary `passkeys`. Listing, renaming and removing passkeys only touch the table
//! and stay in `ROUTES` (binary `bootstrap`), which never names this table.

use super::{Auth, RouteDef};
use crate::error::ApiError;
use crate::extract::{Authed, Client, Json};
use crate::AppState;
use axum::extract::{Path, State};
use axum::response::Response;
use ciam_core::Reason;
use serde::Deserialize;
use serde_json::Value as Json_;

type ApiResult = Result<Response, ApiError>;

fn unavailable() -> ApiResult {
    Err(ciam_core::Error::new(Reason::PASSKEY_UNAVAILABLE).into())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Finish {
    passkey_challenge: String,
    credential: Json_,
    #[serde(default)]
    name: Option<String>,
}

pub async fn list(State(_s): State<AppState>, Authed(_sess): Authed) -> ApiResult {
    unavailable()
}
pub async fn rename(
    State(_s): State<AppState>,
    Authed(_sess): Authed,
    Path(_id): Path<String>,
) -> ApiResult {
    unavailable()
}
pub async fn remove(
    State(_s): State<AppState>,
    Authed(_sess): Authed,
    Path(_id): Path<String>,
) -> ApiResult {
    unavailable()
}
pub async fn register_options(State(_s): State<AppState>, Authed(_sess): Authed) -> ApiResult {
    unavailable()
}
pub async fn register(
    State(_s): State<AppState>,
    Authed(_sess): Authed,
    Client(_c): Client,
    Json(_b): Json<Finish>,
) -> ApiResult {
    let _ = (&_b.passkey_challenge, &_b.credential, &_b.name);
    unavailable()
}
pub async fn login_options(State(_s): State<AppState>) -> ApiResult {
    unavailable()
}
pub async fn login(State(_s): State<AppState>, Client(_c): Client) -> ApiResult {
    unavailable()
}
pub async fn mfa_options(State(_s): State<AppState>) -> ApiResult {
    unavailable()
}
pub async fn login_mfa(State(_s): State<AppState>, Client(_c): Client) -> ApiResult {
    unavailable()
}
pub async fn reauth_options(State(_s): State<AppState>, Authed(_sess): Authed) -> ApiResult {
    unavailable()
}
pub async fn reauth(State(_s): State<AppState>, Authed(_sess): Authed) -> ApiResult {
    unavailable()
}

/// The ceremony routes: binary `passkeys` (docs/passkeys-design.md §1.4). Nothing reachable
/// from the `bootstrap` binary names this table, so its link leaves the WebAuthn crate out.
#[rustfmt::skip]
pub const CEREMONY_ROUTES: &[RouteDef] = &[
    route!("auth_passkey_register_options", POST, "/auth/passkeys/options",           register_options, Session, "passkeyRegisterOptions"),
    route!("auth_passkey_register",         POST, "/auth/passkeys",                   register,         Session, "passkeyRegister"),
    route!("auth_login_passkey_options",    POST, "/auth/login/passkey/options",      login_options,    Public,  "passkeyLoginOptions"),
    route!("auth_login_passkey",            POST, "/auth/login/passkey",              login,            Public,  "loginPasskey"),
    route!("auth_mfa_passkey_options",      POST, "/auth/login/passkey/mfa/options",  mfa_options,      Public,  "passkeyMfaOptions"),
    route!("auth_login_passkey_mfa",        POST, "/auth/login/passkey/mfa",          login_mfa,        Public,  "loginPasskeyMfa"),
    route!("auth_reauth_passkey_options",   POST, "/auth/reauth/passkey/options",     reauth_options,   Session, "passkeyReauthOptions"),
    route!("auth_reauth_passkey",           POST, "/auth/reauth/passkey",             reauth,           Session, "reauthPasskey"),
];
