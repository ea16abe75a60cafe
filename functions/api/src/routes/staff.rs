//! Staff sign-in federated to the company's OpenID Connect identity provider (spec §6): the
//! browser leaves from `/auth/staff/start`, comes back to `/auth/staff/callback` (both the
//! generic handlers of `federation.rs`, which serve the row's provider), and the SPA redeems the
//! one-time login code with `POST /auth/login/staff` (here). Every answer of start and callback
//! is a redirect to the SPA's sign-in screen: with `staffCode` on success, `staffError=<REASON>`
//! otherwise; never a token in a URL.
//!
//! Each sign-in is bound to the browser that started it (against login CSRF): start takes the
//! hash of a random `bind` the SPA keeps in sessionStorage, and redeeming the login code needs
//! that `bind`.

use crate::error::ApiError;
use crate::extract::{Client, Json};
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::State;
use ciam_core::staff;
use serde::Deserialize;

/// The operations staff's rows publish for the generic handlers (`federation::{start,
/// callback}`): `ciam-gen` reads a `Fed` row's summary, description and reasons from the doc
/// comment of the part's name in its provider's file (docs/openapi.json), since the shared
/// handler cannot say what one provider's protocol does.
#[cfg(feature = "openapi")]
#[allow(dead_code, non_camel_case_types)]
enum Operations {
    /// Staff sign-in: leave for the company identity provider
    ///
    /// A browser navigation, not an API call. Stores the state of the sign-in (10 minutes: nonce, PKCE
    /// S256 verifier, language, the query to return to, bindHash) and redirects to the company OpenID
    /// Connect provider's authorization endpoint (response_type=code, scope `openid email profile`,
    /// state, nonce, code_challenge S256, redirect_uri `<public url>/ciam/v1/auth/staff/callback`). The
    /// discovery document's issuer must be the configured one and its authorization, token and userinfo
    /// endpoints https URLs (http only on loopback), else `staffError=SERVICE_UNAVAILABLE`. Not
    /// configured: back to sign-in with `staffError=UNAVAILABLE`; no valid bindHash:
    /// `staffError=INVALID_PARAMETER`.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/staff/start?lang=&query=&bindHash=`: every answer is a 302 (the source's); a refusal
    /// goes back to sign-in with `staffError=<REASON>`, so the reasons above are only the deadline's
    /// and a panic's. Round trips: 1 (the state), plus the provider's discovery document when not
    /// cached.
    start,

    /// Staff sign-in: back from the company identity provider
    ///
    /// The redirect URI registered at the company identity provider. Consumes the state (single use: a
    /// replay is refused), exchanges the code (client_secret_basic, code_verifier), checks the
    /// id_token's iss, aud, exp and nonce (the token came straight from the token endpoint over TLS, so
    /// its signature is not checked, OpenID Connect Core 3.1.3.7), takes sub and email with
    /// email_verified (id_token, else userinfo). The email must be declared `email_verified: true` (a
    /// missing flag counts as unverified) and be in a company domain, else EIAM_INVALID_MAIL: the
    /// company provider is authoritative for the company mail domains, and linking an existing account
    /// by mail relies on that. Links the account that has the mail (`eiamUid = sub`; another eiamUid is
    /// refused with EIAM_MAIL_PERMISSION_DENIED) or creates an internal account without password. Then
    /// redirects to `/{lang}/passport/signin?staffCode=<one-time code, 60 s, bound to the state's
    /// bindHash>&<query>`; on failure `staffError=<REASON>&<query>`. Never a token in a URL.
    ///
    /// Reasons: none.
    ///
    /// `GET /auth/staff/callback?code&state`: every answer is a 302 (the source's), refusals as
    /// `staffError=<REASON>`. Round trips: 2 (state read and delete), 2 or 3 to link (mail, user, maybe
    /// a write), 1 (the login code); plus the token request (and userinfo when the id_token has no
    /// mail).
    callback,
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct StaffLogin {
    /// the staffCode of the callback
    code: String,
    /// the random value kept by the browser since /auth/staff/start (its SHA-256 was the
    /// bindHash)
    bind: String,
}

/// Staff sign-in: redeem the one-time login code
///
/// Redeems the `staffCode` of the callback once (60 s) with the `bind` whose SHA-256 was given to
/// /auth/staff/start as bindHash. Answers like POST /auth/login/password: a session, or
/// NEED_TOTP_VERIFY with `challenge` when two-factor is on (then POST /auth/login/totp). An
/// unknown, expired or used code, or another browser's bind (compared in constant time), is
/// AUTHORIZATION_FAILED, and the code is used up either way; a missing or empty bind is
/// INVALID_PARAMETER; a locked account VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// Reasons: AUTHORIZATION_FAILED, NEED_TOTP_VERIFY, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// `POST /auth/login/staff {code, bind}`. Round trips: 4 (code read, code delete, user, session
/// write).
pub async fn login(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<StaffLogin>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
        staff::redeem(&s.ciam, &b.code, &b.bind, &client).await?,
    ))
}
