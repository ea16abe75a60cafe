//! Staff sign-in federated to the company's OpenID Connect identity provider (spec §6): the
//! browser leaves from `start`, comes back to `callback`, and the SPA redeems the one-time login
//! code with `POST /auth/login/staff`. Every answer of `start` and `callback` is a redirect to
//! the SPA's sign-in screen: with `staffCode` on success, `staffError=<REASON>` otherwise; never
//! a token in a URL.
//!
//! Each sign-in is bound to the browser that started it (against login CSRF): `start` takes the
//! hash of a random `bind` the SPA keeps in sessionStorage, and redeeming the login code needs
//! that `bind`.

use crate::error::ApiError;
use crate::extract::{Client, Json, Lang};
use crate::federation;
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::staff;
use ciam_core::{Error, Reason};
use serde::Deserialize;

fn redirect(to: String) -> Response {
    (
        StatusCode::FOUND,
        [
            (header::LOCATION, to),
            (header::CACHE_CONTROL, "no-store".to_owned()),
            (header::REFERRER_POLICY, "no-referrer".to_owned()),
        ],
    )
        .into_response()
}

fn refused(lang: ciam_core::Lang, reason: &str, query: &str) -> Response {
    redirect(staff::signin_url(lang, "staffError", reason, query))
}

/// Logs why the staff sign-in stopped, then goes back to sign-in with `staffError=<REASON>`.
fn failed(lang: ciam_core::Lang, e: &Error, query: &str) -> Response {
    if e.reason.status() >= 500 {
        tracing::error!(reason = %e.reason, cause = e.cause.as_deref().unwrap_or(""), "staff sign-in failed");
    } else {
        tracing::info!(reason = %e.reason, cause = e.cause.as_deref().unwrap_or(""), "staff sign-in refused");
    }
    refused(lang, e.reason.code(), query)
}

#[derive(Deserialize)]
pub struct StartQuery {
    lang: Option<String>,
    /// The SPA's query to return to (e.g. `appId=…&serviceUrl=…`), URL-encoded once.
    query: Option<String>,
    /// `base64url(SHA-256(bind))` of the browser's random `bind` (required).
    #[serde(rename = "bindHash")]
    bind_hash: Option<String>,
}

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
pub async fn start(
    State(s): State<AppState>,
    Lang(req_lang): Lang,
    q: Result<Query<StartQuery>, QueryRejection>,
) -> Response {
    let (lang, query, bind_hash) = match q {
        Ok(Query(q)) => (
            q.lang
                .as_deref()
                .and_then(ciam_core::Lang::parse_tag)
                .unwrap_or(req_lang),
            staff::return_query(q.query.as_deref().unwrap_or("")),
            q.bind_hash.unwrap_or_default(),
        ),
        Err(_) => (req_lang, String::new(), String::new()),
    };
    // Without a public URL (CIAM_PUBLIC_URL unset on AWS) there is no callback to register.
    let Some(idp) = s
        .ciam
        .config
        .staff_idp
        .as_ref()
        .filter(|_| !s.ciam.config.public_url.is_empty())
    else {
        return refused(lang, "UNAVAILABLE", &query);
    };
    let provider = federation::Federation;
    match staff::authorization_request(&s.ciam, &provider, idp, lang, &query, &bind_hash).await {
        Ok(url) => redirect(url),
        Err(e) => failed(lang, &e, &query),
    }
}

#[derive(Deserialize)]
pub struct CallbackQuery {
    code: Option<String>,
    state: Option<String>,
    error: Option<String>,
    /// RFC 9207: the issuer of the answer, when the provider sends it.
    iss: Option<String>,
}

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
pub async fn callback(
    State(s): State<AppState>,
    Lang(req_lang): Lang,
    q: Result<Query<CallbackQuery>, QueryRejection>,
) -> Response {
    let Ok(Query(q)) = q else {
        return refused(req_lang, Reason::AUTHORIZATION_FAILED.code(), "");
    };
    let pending = match staff::take_state(&s.ciam, q.state.as_deref().unwrap_or("")).await {
        Ok(p) => p,
        Err(e) => return failed(req_lang, &e, ""),
    };
    let cb = staff::Callback {
        code: q.code,
        error: q.error,
        iss: q.iss,
    };
    match staff::finish(&s.ciam, &federation::Federation, &pending, cb).await {
        Ok(code) => redirect(staff::signin_url(
            pending.lang,
            "staffCode",
            &code,
            &pending.query,
        )),
        Err(e) => failed(pending.lang, &e, &pending.query),
    }
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
