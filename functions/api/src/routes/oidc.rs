//! The OpenID Connect provider under `/oidc` (see `ciam_core::oidc`). The protocol endpoints
//! (authorize refusals that go back to the client, token, userinfo) speak RFC 6749 / 6750; the
//! two request endpoints the consent screen calls speak the Reason catalogue like every other
//! signed-in route.

use crate::error::ApiError;
use crate::extract::{basic, bearer, Authed, Json, Lang};
use crate::AppState;
use axum::body::Bytes;
use axum::extract::{Path, RawQuery, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::oidc::logout::{self, EndSession};
use ciam_core::oidc::{self, OAuthError, TokenRequest};
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

/// `GET /oidc/.well-known/openid-configuration`: the provider's metadata. Round trips: 0.
pub async fn discovery(State(s): State<AppState>) -> Response {
    if let Some(res) = unconfigured(&s) {
        return res;
    }
    public_json(oidc::discovery(&s.ciam))
}

/// `GET /oidc/jwks`: the signing keys of versions N-1, N (current) and N+1. Round trips: 0.
pub async fn jwks(State(s): State<AppState>) -> Response {
    public_json(oidc::jwks(&s.ciam))
}

fn pairs(raw: &[u8]) -> Vec<(String, String)> {
    url::form_urlencoded::parse(raw)
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// `GET /oidc/authorize`: a bad `client_id` or `redirect_uri` is a 400 answered here; any other
/// refusal is a 302 back to the client with `error`; a valid request is stored and the browser
/// sent to the consent screen (302 to `/{lang}/passport/authorize?oidcRequest=<id>`).
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

/// `GET /oidc/requests/{id}`: the consent screen's view of a stored request.
/// Round trips: 3 (authentication, the request, the app and consent together).
pub async fn request_get(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Path(id): Path<String>,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    Ok(axum::Json(oidc::request_context(&s.ciam, &sess, &id, lang).await?).into_response())
}

/// `POST /oidc/requests/{id}`: Allow. Consumes the request, issues the code, remembers the
/// consent; answers `{redirect}`. Any body is ignored. Round trips: 4 (authentication, the
/// request, the app and the consent together, one transaction).
pub async fn request_post(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Path(id): Path<String>,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    Ok(axum::Json(oidc::approve(&s.ciam, &sess, &id).await?).into_response())
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

/// `POST /oidc/token` (form): the authorization code and PKCE verifier for an access token and
/// an id_token, with `Cache-Control: no-store`. Errors are RFC 6749 JSON. Round trips: 4 (app
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

/// `GET /oidc/userinfo` with `Authorization: Bearer <access token>`: `sub` and the granted
/// claims, while the user's consent to the app stands. Round trips: 2 (the token; the user and
/// the consent together).
pub async fn userinfo(State(s): State<AppState>, headers: HeaderMap) -> Response {
    answer_userinfo(&s, bearer(&headers).map(str::to_owned)).await
}

/// `POST /oidc/userinfo`: the same, the token also accepted as the form field `access_token`
/// (RFC 6750 §2.2). Round trips: 2.
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

/// `GET /oidc/logout` (the `end_session_endpoint`, RP-Initiated Logout 1.0): reads no session
/// and writes nothing; 303 to the SPA's `/{lang}/passport/end-session` with the request's
/// parameters (`id_token_hint`, `client_id`, `post_logout_redirect_uri`, `state`; the language
/// from `ui_locales`, else Accept-Language), where the page checks them and, holding the
/// session, ends it. Round trips: 0.
pub async fn logout_get(
    State(s): State<AppState>,
    Lang(lang): Lang,
    RawQuery(q): RawQuery,
) -> ApiResult {
    oidc::configured(&s.ciam)?;
    to_spa(&pairs(q.unwrap_or_default().as_bytes()), lang)
}

/// `POST /oidc/logout` (form): the same as `GET`. Round trips: 0.
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

/// `GET /oidc/end-session`: what the end-session page shows (the app's name, the checked
/// redirect, whether the hint verified), the request's parameters in the query. Nothing ends.
/// Round trips: 0 or 1 (the app).
pub async fn end_session_get(
    State(s): State<AppState>,
    Lang(lang): Lang,
    RawQuery(q): RawQuery,
) -> ApiResult {
    let req = EndSession::from_pairs(&pairs(q.unwrap_or_default().as_bytes()));
    Ok(axum::Json(logout::context(&s.ciam, &req, lang).await?).into_response())
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
    confirmed: Option<bool>,
}

/// `POST /oidc/end-session`: ends the caller's session when the hint names it (or its user) or
/// the user confirmed; answers `{ended, redirect}`. Round trips: 2 to 4 (authentication, the
/// app, the sign-out's).
pub async fn end_session_post(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<EndSessionBody>,
) -> ApiResult {
    let req = EndSession {
        id_token_hint: b.id_token_hint.filter(|v| !v.is_empty()),
        client_id: b.client_id.filter(|v| !v.is_empty()),
        post_logout_redirect_uri: b.post_logout_redirect_uri.filter(|v| !v.is_empty()),
        state: b.state.filter(|v| !v.is_empty()),
    };
    let ended = logout::end(&s.ciam, &sess, &req, b.confirmed.unwrap_or(false)).await?;
    Ok(axum::Json(ended).into_response())
}
