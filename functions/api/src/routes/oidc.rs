//! The OpenID Connect provider under `/oidc` (see `ciam_core::oidc`). The protocol endpoints
//! (authorize refusals that go back to the client, token, userinfo) speak RFC 6749 / 6750; the
//! two request endpoints the consent screen calls speak the Reason catalogue like every other
//! signed-in route.

use crate::error::ApiError;
use crate::extract::{basic, bearer, Authed, Json, Lang};
use crate::reply::Reply;
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::consents::Context;
use ciam_core::oidc::logout::{self, EndSession, Ended};
use ciam_core::oidc::{self, Approved, OAuthError, TokenRequest};
use serde::Deserialize;

type ApiResult = Result<Response, ApiError>;

/// Public, briefly cacheable documents that browsers of other origins may read.
fn public_json(v: serde_json::Value) -> Response {
    (
        [
            (header::CACHE_CONTROL, "public, max-age=300"),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*"),
        ],
        axum::Json(v),
    )
        .into_response()
}

/// 503 SERVICE_UNAVAILABLE while the deployment does not know its public URL (the issuer).
fn unconfigured(s: &AppState) -> Option<Response> {
    oidc::configured(&s.ciam)
        .err()
        .map(|e| ApiError(e).into_response())
}

/// OpenID Connect discovery
///
/// The provider's metadata (OpenID Connect Discovery 1.0). The issuer is {public URL}/ciam/v1/oidc.
/// Public, cacheable for 5 minutes. See docs/oidc.md. While the deployment has no public URL
/// (CIAM_PUBLIC_URL unset in AWS) this answers 503 SERVICE_UNAVAILABLE (Ciam's error shape) rather
/// than a wrong issuer.
///
/// Reasons: none.
///
/// `GET /oidc/.well-known/openid-configuration`. Untyped: the metadata is `oidc::discovery`'s JSON
/// (OpenID Connect Discovery's names; the source's 200). Round trips: 0.
pub async fn discovery(State(s): State<AppState>) -> Response {
    if let Some(res) = unconfigured(&s) {
        return res;
    }
    public_json(oidc::discovery(&s.ciam))
}

/// OpenID Connect signing keys
///
/// The ES256 public keys (kty EC, crv P-256, x, y, kid, use sig, alg ES256) of versions N
/// (current), N+1 (the next, so that clients already cached it when a rotation switches to it) and
/// N-1 (from version 2 on). Public, cacheable for 5 minutes.
///
/// Reasons: none.
///
/// `GET /oidc/jwks`: the signing keys of versions N-1, N (current) and N+1. Untyped: a JWK Set of
/// `oidc::jwks` (the source's 200). Round trips: 0.
pub async fn jwks(State(s): State<AppState>) -> Response {
    public_json(oidc::jwks(&s.ciam))
}

fn pairs(raw: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(raw)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// OpenID Connect authorization endpoint
///
/// Authorization code flow with PKCE S256 only. client_id is the appId; redirect_uri must equal one
/// of the app's registered serviceUrls exactly. A missing/unknown client_id or a bad redirect_uri
/// is answered here (400 INVALID_PARAMETER naming it), never redirected. Any other refusal is a 302
/// to redirect_uri with error, error_description, state and iss (unsupported_response_type;
/// invalid_request for a missing openid scope, a missing code_challenge or a method other than
/// S256). A valid request is stored for 10 minutes and answered with a 302 to
/// /{lang}/passport/authorize?oidcRequest=<id> (lang from ui_locales, else Accept-Language, else
/// zh-CN). While the deployment has no public URL (CIAM_PUBLIC_URL unset in AWS) this answers 503
/// SERVICE_UNAVAILABLE (Ciam's error shape) rather than a wrong issuer.
///
/// Reasons: INVALID_PARAMETER.
///
/// `GET /oidc/authorize`: a bad `client_id` or `redirect_uri` is a 400 answered here; any other
/// refusal is a 302 back to the client with `error`; a valid request is stored and the browser sent
/// to the consent screen (302 to `/{lang}/passport/authorize?oidcRequest=<id>`; the source's 302).
/// Round trips: 2 (the app, the request).
pub async fn authorize(
    State(s): State<AppState>,
    Lang(lang): Lang,
    RawQuery(q): RawQuery,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    let params = pairs(q.unwrap_or_default().as_bytes());
    let next = oidc::authorize(&s.ciam, &params, lang).await?;
    let location = HeaderValue::from_str(&next.location())
        .map_err(|e| ApiError(ciam_core::Error::internal(e)))?;
    Ok((StatusCode::FOUND, [(header::LOCATION, location)]).into_response())
}

/// The consent screen's view of an authorization request
///
/// For the signed-in user: the app's localised name and logo, the scopes the request asks for
/// (those the app still has), whether the user's remembered consent already covers all of them,
/// serviceUrl (the redirect_uri) and cancelUrl (the redirect_uri with error=access_denied, state
/// and iss). A request that asks for an organization (the organization scope or parameter, or the
/// app's setting) adds organization: the person's active organizations that may go into the
/// token (choices; several: the page asks which) or why they cannot go on (refused: required,
/// notMember). Each choice tells what its organization's policy asks of this session (need:
/// stepUp, a second factor the account has, proved by POST /auth/totp/verify or
/// /auth/reauth/passkey, then the view is read again; secondFactor, the account has none to
/// give; method, the session's sign-in method is not one of allowedMethods, which are then
/// told). An unknown, expired or used request is NOT_FOUND. While the deployment has no public
/// URL (CIAM_PUBLIC_URL unset in AWS) this answers 503 SERVICE_UNAVAILABLE (Ciam's error shape)
/// rather than a wrong issuer.
///
/// Reasons: APPID_NOT_FOUND, INVALID_PARAMETER, NOT_FOUND.
///
/// `GET /oidc/requests/{id}`: APPID_NOT_FOUND for an app deleted since the request,
/// INVALID_PARAMETER (`redirect_uri`) for a redirect URI it no longer registers. Round trips: 3
/// (authentication, the request, the app and consent together).
pub async fn request_get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Path(id): Path<String>,
) -> Result<Reply<Context>, ApiError> {
    oidc::configured(&s.ciam)?;
    Ok(Reply(
        oidc::request_context(&s.ciam, &sess, &id, lang).await?,
    ))
}

/// What Allow sends: the organization picked, when the request asks for one and the person has
/// several.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AllowBody {
    /// one of the view's organization.choices (orgId)
    organization: Option<String>,
}

/// Allow an authorization request
///
/// Consumes the request (single use) and, in one transaction, issues the authorization code (5
/// minutes, single use), remembers the consent to the request's scopes (merged with those allowed
/// before; never the app's other scopes) and records the app among the user's recent apps. Answers
/// where the browser goes: redirect_uri with code, state and iss. The body is {} or, when the
/// request asks for an organization and the person has several, {organization} (one of the view's
/// organization.choices); several and none picked is INVALID_PARAMETER on organization; a request
/// the person cannot go on with (the app requires an organization they do not have, or the
/// organization parameter names one that is not theirs) is ORG_NOT_FOUND; an organization whose
/// policy still needs something of the session (its choice's need) is ORG_MFA_REQUIRED (a second
/// factor) or ORG_METHOD_NOT_ALLOWED (another sign-in method), and the request stays for after
/// the step-up. While the deployment has no public URL (CIAM_PUBLIC_URL unset in AWS) this answers 503 SERVICE_UNAVAILABLE (Ciam's error
/// shape) rather than a wrong issuer.
///
/// Reasons: APPID_NOT_FOUND, NOT_FOUND, ORG_METHOD_NOT_ALLOWED, ORG_MFA_REQUIRED, ORG_NOT_FOUND.
///
/// `POST /oidc/requests/{id}`: reasons as for the GET, and the organization's. Round trips: 4
/// (authentication, the request, the app and the consent together, one transaction), 1 or 2 more
/// for a request that asks for an organization.
pub async fn request_post(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
    Json(b): Json<AllowBody>,
) -> Result<Reply<Approved>, ApiError> {
    oidc::configured(&s.ciam)?;
    let org = b.organization.as_deref();
    Ok(Reply(oidc::approve(&s.ciam, &sess, &id, org).await?))
}

/// An RFC 6749 error response; `invalid_client` carries the Basic challenge, `invalid_token`
/// the Bearer one (RFC 6750).
fn oauth_error(e: &OAuthError) -> Response {
    let status = StatusCode::from_u16(e.status()).unwrap_or(StatusCode::BAD_REQUEST);
    let mut res = (status, axum::Json(e.body())).into_response();
    let challenge = match e.error {
        "invalid_client" => Some(r#"Basic realm="ciam""#.to_owned()),
        "invalid_token" => Some(format!(
            r#"Bearer realm="ciam", error="invalid_token", error_description="{}""#,
            e.description.replace(['"', '\\'], "")
        )),
        _ => None,
    };
    if let Some(v) = challenge.and_then(|c| HeaderValue::from_str(&c).ok()) {
        res.headers_mut().insert(header::WWW_AUTHENTICATE, v);
    }
    res.headers_mut()
        .insert(header::PRAGMA, HeaderValue::from_static("no-cache"));
    res
}

fn form_type(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| {
            v.trim()
                .to_ascii_lowercase()
                .starts_with("application/x-www-form-urlencoded")
        })
}

/// The form of a POST: every parameter at most once (RFC 6749 §3.2).
fn form(headers: &HeaderMap, body: &[u8]) -> Result<Vec<(String, String)>, OAuthError> {
    if !form_type(headers) {
        return Err(OAuthError::new(
            "invalid_request",
            "send application/x-www-form-urlencoded",
        ));
    }
    let p = pairs(body);
    if let Some((k, _)) = p
        .iter()
        .find(|(k, _)| p.iter().filter(|(x, _)| x == k).count() > 1)
    {
        return Err(OAuthError::new(
            "invalid_request",
            format!("{k} is repeated"),
        ));
    }
    Ok(p)
}

fn take(p: &[(String, String)], name: &str) -> Option<String> {
    p.iter().find(|(k, _)| k == name).map(|(_, v)| v.clone())
}

/// OpenID Connect token endpoint
///
/// grant_type=authorization_code only. The client authenticates with client_secret_basic (HTTP
/// Basic, appId:appSecret form-encoded) or client_secret_post (client_id and client_secret in the
/// form), not both; wrong credentials are 401 invalid_client with WWW-Authenticate and leave the
/// code alone. Otherwise the code is burned by this one attempt; another client's code, another
/// redirect_uri or a code_verifier that does not match are invalid_grant. A code redeemed a second
/// time is invalid_grant and revokes the access token of its first redemption (RFC 6749 section
/// 4.1.2). Answers with Cache-Control: no-store. Errors are RFC 6749 JSON, except 503
/// SERVICE_UNAVAILABLE (Ciam's error shape) while the deployment has no public URL.
///
/// Reasons: OAuth.
///
/// `POST /oidc/token` (form). Its answers stay in docs/openapi/source.json: every error here is
/// OAuth's (`OAuthError`, a 500 `server_error` and a 503 `temporarily_unavailable` included),
/// which the generated error answers (Ciam's error shape) would contradict. Round trips: 4 (app
/// and code together, the user, the access token, the code's conditional update into a
/// tombstone).
pub async fn token(State(s): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    if let Some(res) = unconfigured(&s) {
        return res;
    }
    let run = async {
        let p = form(&headers, &body)?;
        let basic = basic(&headers)
            .map(|b| {
                b.ok_or_else(|| OAuthError::new("invalid_client", "malformed Basic credentials"))
            })
            .transpose()?;
        let req = TokenRequest {
            grant_type: take(&p, "grant_type"),
            code: take(&p, "code"),
            redirect_uri: take(&p, "redirect_uri"),
            code_verifier: take(&p, "code_verifier"),
            client_id: take(&p, "client_id"),
            client_secret: take(&p, "client_secret"),
        };
        oidc::token(&s.ciam, &req, basic).await
    };
    match run.await {
        Ok(tokens) => (
            [
                (header::CACHE_CONTROL, "no-store"),
                (header::PRAGMA, "no-cache"),
            ],
            axum::Json(tokens),
        )
            .into_response(),
        Err(e) => oauth_error(&e),
    }
}

async fn answer_userinfo(s: &AppState, token: Option<String>) -> Response {
    if let Some(res) = unconfigured(s) {
        return res;
    }
    match oidc::userinfo(&s.ciam, token.as_deref()).await {
        Ok(claims) => axum::Json(claims).into_response(),
        Err(e) => oauth_error(&e),
    }
}

/// OpenID Connect userinfo
///
/// Authorization: Bearer <access_token>. sub and the claims of the scopes granted. An unknown or
/// expired token, one of an account deactivated or signed out everywhere since, one whose consent
/// the user revoked (DELETE /auth/consents/{appId}) or one revoked by a replayed code is 401 with
/// WWW-Authenticate: Bearer error="invalid_token". While the deployment has no public URL
/// (CIAM_PUBLIC_URL unset in AWS) this answers 503 SERVICE_UNAVAILABLE (Ciam's error shape) rather
/// than a wrong issuer.
///
/// Reasons: OAuth.
///
/// `GET /oidc/userinfo`. Its answers stay in docs/openapi/source.json (OAuth's errors, as the
/// token endpoint's). Round trips: 2 (the token; the user and the consent together).
pub async fn userinfo(State(s): State<AppState>, headers: HeaderMap) -> Response {
    answer_userinfo(&s, bearer(&headers).map(str::to_owned)).await
}

/// OpenID Connect userinfo (POST)
///
/// As GET; the access token may also come as the form field access_token (RFC 6750 section 2.2).
///
/// Reasons: OAuth.
///
/// `POST /oidc/userinfo`. Its answers stay in docs/openapi/source.json (OAuth's errors).
/// Round trips: 2.
pub async fn userinfo_post(State(s): State<AppState>, headers: HeaderMap, body: Bytes) -> Response {
    let token = match bearer(&headers) {
        Some(t) => Some(t.to_owned()),
        None if form_type(&headers) => match form(&headers, &body) {
            Ok(p) => take(&p, "access_token"),
            Err(e) => return oauth_error(&e),
        },
        None => None,
    };
    answer_userinfo(&s, token).await
}

/// OpenID Connect end-session endpoint (RP-Initiated Logout)
///
/// OpenID Connect RP-Initiated Logout 1.0 (end_session_endpoint in discovery). Reads no session and
/// writes nothing: the session is the SPA's, which this navigation does not carry (as for
/// /oidc/authorize). Answers 303 to /{lang}/passport/end-session with id_token_hint, client_id,
/// post_logout_redirect_uri and state (lang from ui_locales, else Accept-Language, else zh-CN);
/// that page checks them (GET /oidc/end-session) and ends the session (POST /oidc/end-session): at
/// once when the id_token_hint verifies and names the browser's session (sid) or its user, else
/// after the user confirms. The redirect is followed only when it is exactly one of the app's
/// registered postLogoutRedirectUris; any other one is refused on the page, never followed. See
/// docs/partners.md "Sign-out". While the deployment has no public URL (CIAM_PUBLIC_URL unset in
/// AWS) this answers 503 SERVICE_UNAVAILABLE (Ciam's error shape) rather than a wrong issuer.
///
/// Reasons: none.
///
/// `GET /oidc/logout` (the `end_session_endpoint`): reads no session and writes nothing; 303 to the
/// SPA's `/{lang}/passport/end-session` with the request's parameters (the source's 303). Round
/// trips: 0.
pub async fn logout_get(
    State(s): State<AppState>,
    Lang(lang): Lang,
    RawQuery(q): RawQuery,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    to_spa(&pairs(q.unwrap_or_default().as_bytes()), lang)
}

/// OpenID Connect end-session endpoint (RP-Initiated Logout), form POST
///
/// The same as GET /oidc/logout with the parameters as an application/x-www-form-urlencoded body.
/// While the deployment has no public URL (CIAM_PUBLIC_URL unset in AWS) this answers 503
/// SERVICE_UNAVAILABLE (Ciam's error shape) rather than a wrong issuer.
///
/// Reasons: none.
///
/// `POST /oidc/logout` (form, the source's body and 303): the same as `GET`. Round trips: 0.
pub async fn logout_post(
    State(s): State<AppState>,
    Lang(lang): Lang,
    headers: HeaderMap,
    body: Bytes,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    let p = if form_type(&headers) {
        pairs(&body)
    } else {
        Vec::new()
    };
    to_spa(&p, lang)
}

fn to_spa(params: &[(String, String)], lang: ciam_core::Lang) -> ApiResult {
    let location = HeaderValue::from_str(&logout::spa_location(params, lang))
        .map_err(|e| ApiError(ciam_core::Error::internal(e)))?;
    Ok((
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, location),
            (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
        ],
    )
        .into_response())
}

/// What an end-session request means
///
/// For the end-session page, signed in or not: the app's localised name (client_id's, or the
/// verified hint's aud), the redirect (the registered post_logout_redirect_uri with state) and
/// whether the id_token_hint verified (an ID token of this provider, by a key of the JWKS, expired
/// or not; one that does not verify counts as absent and the user is asked). Ends nothing.
/// INVALID_PARAMETER: client_id unknown or not the hint's aud (field client_id), a
/// post_logout_redirect_uri that is not exactly one of the app's registered postLogoutRedirectUris
/// or without a known app (field post_logout_redirect_uri), a state over 1024 characters (field
/// state). While the deployment has no public URL (CIAM_PUBLIC_URL unset in AWS) this answers 503
/// SERVICE_UNAVAILABLE (Ciam's error shape) rather than a wrong issuer.
///
/// Reasons: INVALID_PARAMETER.
///
/// `GET /oidc/end-session`: the request's parameters in the query (the source's). Round trips: 0 or
/// 1 (the app).
pub async fn end_session_get(
    State(s): State<AppState>,
    Lang(lang): Lang,
    RawQuery(q): RawQuery,
) -> Result<Reply<logout::Context>, ApiError> {
    let req = EndSession::from_pairs(&pairs(q.unwrap_or_default().as_bytes()));
    Ok(Reply(logout::context(&s.ciam, &req, lang).await?))
}

/// The end-session page's request: the RP's parameters and whether the user confirmed.
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct EndSessionBody {
    id_token_hint: Option<String>,
    client_id: Option<String>,
    post_logout_redirect_uri: Option<String>,
    state: Option<String>,
    /// the user pressed Sign out on the confirmation
    // `boolean` as before (absent, not null, when not pressed).
    #[cfg_attr(feature = "openapi", schemars(extend("type" = "boolean")))]
    confirmed: Option<bool>,
}

/// End the session for an end-session request
///
/// Checks the request as GET /oidc/end-session does, then ends the caller's session as POST
/// /auth/logout does (its session.ended event included) when the id_token_hint verified and names
/// this session (sid) or its user, or when confirmed is true; otherwise ends nothing and answers
/// ended: false (the page asks the user). redirect: where the browser goes now, after an end only.
/// While the deployment has no public URL (CIAM_PUBLIC_URL unset in AWS) this answers 503
/// SERVICE_UNAVAILABLE (Ciam's error shape) rather than a wrong issuer.
///
/// Reasons: none.
///
/// `POST /oidc/end-session`. Round trips: 2 to 4 (authentication, the app, the sign-out's).
pub async fn end_session_post(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<EndSessionBody>,
) -> Result<Reply<Ended>, ApiError> {
    let req = EndSession {
        id_token_hint: b.id_token_hint.filter(|v| !v.is_empty()),
        client_id: b.client_id.filter(|v| !v.is_empty()),
        post_logout_redirect_uri: b.post_logout_redirect_uri.filter(|v| !v.is_empty()),
        state: b.state.filter(|v| !v.is_empty()),
    };
    let ended = logout::end(&s.ciam, &sess, &req, b.confirmed.unwrap_or(false)).await?;
    Ok(Reply(ended))
}
