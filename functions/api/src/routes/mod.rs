//! The route table and one handler per route. Each handler's doc comment states its sequential
//! store round trips (see docs/data-model.md).

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang};
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{delete, get, patch, post, MethodRouter};
use ciam_core::accounts::{self, ProfilePatch, Registration};
use ciam_core::validate::Identity;
use ciam_core::{captcha, codes, sessions, Purpose};
use serde::{Deserialize, Serialize};
use serde_json::json;

mod account;
mod apps;
mod avatar;
mod client_error;
mod consents;
mod me;
mod oidc;
mod staff;
mod two_factor;

pub use client_error::{CLIENT_ERROR_LIMIT, RELEASE};

/// One route: its id (also the `CIAM_ROUTE` of its template function), method and path under
/// `/ciam/v1`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RouteDef {
    pub id: &'static str,
    pub method: &'static str,
    pub path: &'static str,
}

const fn r(id: &'static str, method: &'static str, path: &'static str) -> RouteDef {
    RouteDef { id, method, path }
}

pub const ROUTES: &[RouteDef] = &[
    r("auth_location", "GET", "/auth/location"),
    r("auth_captcha", "GET", "/auth/captcha"),
    r("auth_identity", "POST", "/auth/identity"),
    r("auth_register", "POST", "/auth/register"),
    r("auth_login_password", "POST", "/auth/login/password"),
    r("auth_login_code", "POST", "/auth/login/code"),
    r("auth_info_get", "GET", "/auth/info"),
    r("auth_info_patch", "PATCH", "/auth/info"),
    r("auth_pwd", "PATCH", "/auth/pwd"),
    r("auth_logout", "POST", "/auth/logout"),
    r("auth_totp_url", "GET", "/auth/totp/url"),
    r("auth_totp_enable", "POST", "/auth/totp/enable"),
    r("auth_totp_verify", "POST", "/auth/totp/verify"),
    r("auth_totp_backup_codes", "POST", "/auth/totp/backupCodes"),
    r("auth_totp_disable", "POST", "/auth/totp/disable"),
    r("auth_login_totp", "POST", "/auth/login/totp"),
    r("auth_unlock_code", "POST", "/auth/unlockCode"),
    r("auth_advertisement", "PATCH", "/auth/advertisement"),
    r("auth_mail", "PATCH", "/auth/mail"),
    r("auth_phone", "PATCH", "/auth/phone"),
    r("auth_deactivation", "PATCH", "/auth/deactivation"),
    r("auth_privacy_get", "GET", "/auth/privacy"),
    r("auth_privacy_patch", "PATCH", "/auth/privacy"),
    r("auth_sessions", "GET", "/auth/sessions"),
    r("auth_session_delete", "DELETE", "/auth/sessions/{id}"),
    r("auth_activity", "GET", "/auth/activity"),
    r("auth_apps", "GET", "/auth/apps"),
    r("app_language", "GET", "/app/language/{language}"),
    r("auth_avatar", "PATCH", "/auth/avatar"),
    r("avatar_get", "GET", "/avatar/{key}"),
    r("app_list", "GET", "/app"),
    r("app_create", "POST", "/app"),
    r("app_get", "GET", "/app/{appId}"),
    r("app_patch", "PATCH", "/app/{appId}"),
    r("app_delete", "DELETE", "/app/{appId}"),
    r("auth_login_token", "POST", "/auth/login/token"),
    r("auth_login_token_verify", "GET", "/auth/login/token/verify"),
    r("auth_consent", "GET", "/auth/consent"),
    r("auth_consents", "GET", "/auth/consents"),
    r("auth_consent_delete", "DELETE", "/auth/consents/{appId}"),
    r("auth_staff_start", "GET", "/auth/staff/start"),
    r("auth_staff_callback", "GET", "/auth/staff/callback"),
    r("auth_login_staff", "POST", "/auth/login/staff"),
    r(
        "oidc_discovery",
        "GET",
        "/oidc/.well-known/openid-configuration",
    ),
    r("oidc_authorize", "GET", "/oidc/authorize"),
    r("oidc_request_get", "GET", "/oidc/requests/{id}"),
    r("oidc_request_post", "POST", "/oidc/requests/{id}"),
    r("oidc_token", "POST", "/oidc/token"),
    r("oidc_userinfo", "GET", "/oidc/userinfo"),
    r("oidc_userinfo_post", "POST", "/oidc/userinfo"),
    r("oidc_jwks", "GET", "/oidc/jwks"),
    r("openapi", "GET", "/openapi.json"),
    r("client_error", "POST", "/client-errors"),
    r("version", "GET", "/version"),
];

pub fn handler(id: &str) -> MethodRouter<AppState> {
    match id {
        "auth_location" => get(location),
        "auth_captcha" => get(captcha_challenge),
        "auth_identity" => post(identity),
        "auth_register" => post(register),
        "auth_login_password" => post(login_password),
        "auth_login_code" => post(login_code),
        "auth_info_get" => get(info),
        "auth_info_patch" => patch(update_info),
        "auth_pwd" => patch(password),
        "auth_logout" => post(logout),
        "auth_totp_url" => get(two_factor::url),
        "auth_totp_enable" => post(two_factor::enable),
        "auth_totp_verify" => post(two_factor::verify),
        "auth_totp_backup_codes" => post(two_factor::backup_codes),
        "auth_totp_disable" => post(two_factor::disable),
        "auth_login_totp" => post(two_factor::login_totp),
        "auth_unlock_code" => post(two_factor::unlock_code),
        "auth_advertisement" => patch(account::advertisement),
        "auth_mail" => patch(account::mail),
        "auth_phone" => patch(account::phone),
        "auth_deactivation" => patch(account::deactivation),
        "auth_privacy_get" => get(me::privacy),
        "auth_privacy_patch" => patch(me::set_privacy),
        "auth_sessions" => get(me::sessions),
        "auth_session_delete" => delete(me::revoke_session),
        "auth_activity" => get(me::activity),
        "auth_apps" => get(me::recent_apps),
        "app_language" => get(me::apps_in),
        "auth_avatar" => patch(avatar::upload),
        "avatar_get" => get(avatar::serve),
        "app_list" => get(apps::list),
        "app_create" => post(apps::create),
        "app_get" => get(apps::get),
        "app_patch" => patch(apps::update),
        "app_delete" => delete(apps::remove),
        "auth_login_token" => post(apps::issue_ticket),
        "auth_login_token_verify" => get(apps::verify_ticket),
        "auth_consent" => get(consents::context),
        "auth_consents" => get(consents::list),
        "auth_consent_delete" => delete(consents::revoke),
        "auth_staff_start" => get(staff::start),
        "auth_staff_callback" => get(staff::callback),
        "auth_login_staff" => post(staff::login),
        "oidc_discovery" => get(oidc::discovery),
        "oidc_authorize" => get(oidc::authorize),
        "oidc_request_get" => get(oidc::request_get),
        "oidc_request_post" => post(oidc::request_post),
        "oidc_token" => post(oidc::token),
        "oidc_userinfo" => get(oidc::userinfo),
        "oidc_userinfo_post" => post(oidc::userinfo_post),
        "oidc_jwks" => get(oidc::jwks),
        "client_error" => post(client_error::report),
        "version" => get(client_error::version),
        _ => get(openapi),
    }
}

type ApiResult = Result<Response, ApiError>;

fn ok() -> Response {
    axum::Json(json!({ "ok": true })).into_response()
}

#[derive(Serialize)]
struct Location {
    country: Option<String>,
    language: &'static str,
}

/// `GET /auth/location`. Round trips: 0.
async fn location(headers: HeaderMap, Lang(lang): Lang) -> Response {
    let country = headers
        .get("cloudfront-viewer-country")
        .and_then(|v| v.to_str().ok())
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| c.len() == 2 && c.chars().all(|x| x.is_ascii_uppercase()));
    axum::Json(Location {
        country,
        language: lang.tag(),
    })
    .into_response()
}

/// `GET /auth/captcha`: a fresh proof-of-work challenge. Round trips: 0.
async fn captcha_challenge(State(s): State<AppState>) -> ApiResult {
    Ok(axum::Json(captcha::challenge(&s.ciam)?).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct SendCode {
    account: String,
    purpose: Purpose,
    captcha: Option<String>,
}

/// The identity rules name the field `mail` or `phone`; on the wire it is `account`.
fn on_account(mut e: ciam_core::Error) -> ciam_core::Error {
    if matches!(e.field.as_deref(), Some("mail" | "phone")) {
        e.field = Some("account".into());
    }
    e
}

/// `POST /auth/identity`: sends a code. Answers alike whether or not the identity is registered.
/// Round trips: 1 transaction (+1 read when refused for a limit).
async fn identity(
    State(s): State<AppState>,
    Lang(lang): Lang,
    Json(b): Json<SendCode>,
) -> ApiResult {
    let id = Identity::parse(&b.account).map_err(on_account)?;
    codes::send(&s.ciam, &id, b.purpose, b.captcha.as_deref(), lang).await?;
    Ok(axum::Json(json!({ "sent": true, "resendAfter": codes::RESEND_AFTER })).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct Register {
    user_name: String,
    company: String,
    account: String,
    code: String,
    password: String,
    confirm_password: String,
    country: String,
    accept_terms: bool,
}

/// `POST /auth/register`. Round trips: 2 (code read, one transaction).
async fn register(State(s): State<AppState>, Json(b): Json<Register>) -> ApiResult {
    let user_id = accounts::register(
        &s.ciam,
        Registration {
            user_name: b.user_name,
            company: b.company,
            identity: b.account,
            code: b.code,
            password: b.password,
            confirm_password: b.confirm_password,
            country: b.country,
            accept_terms: b.accept_terms,
        },
    )
    .await
    .map_err(on_account)?;
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({ "userId": user_id })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PasswordLogin {
    account: String,
    password: String,
}

/// `POST /auth/login/password`. Round trips: 3 (identity, user, session write).
async fn login_password(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<PasswordLogin>,
) -> ApiResult {
    Ok(
        axum::Json(accounts::login_password(&s.ciam, &b.account, &b.password, &client).await?)
            .into_response(),
    )
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct CodeLogin {
    account: String,
    code: String,
}

/// `POST /auth/login/code`. Round trips: 5 (identity, user, code read, code delete, session).
async fn login_code(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<CodeLogin>,
) -> ApiResult {
    let signed_in = accounts::login_code(&s.ciam, &b.account, &b.code, &client)
        .await
        .map_err(on_account)?;
    Ok(axum::Json(signed_in).into_response())
}

/// `GET /auth/info`. Round trips: 1 (session and user together; +1 idle refresh a minute).
async fn info(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    Ok(axum::Json(sess.user.info(&s.ciam)).into_response())
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct InfoPatch {
    company: Option<String>,
    duty: Option<String>,
    address: Option<String>,
    display_name: Option<String>,
    country: Option<String>,
}

/// `PATCH /auth/info`. Round trips: 2 (authentication, one conditional update).
async fn update_info(
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

/// Both shapes of `PATCH /auth/pwd`: with a session and `oldPassword` (change), or with
/// `account` and `code` and no session (find password).
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct PasswordChange {
    old_password: Option<String>,
    account: Option<String>,
    code: Option<String>,
    password: String,
    confirm_password: String,
}

/// `PATCH /auth/pwd`. Change: round trips 2 (authentication, one transaction). Reset: 4.
async fn password(
    State(s): State<AppState>,
    headers: HeaderMap,
    Client(client): Client,
    Json(b): Json<PasswordChange>,
) -> ApiResult {
    match (b.old_password, b.account, b.code) {
        (Some(old), None, None) => {
            let bearer = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.strip_prefix("Bearer "));
            let sess = sessions::authenticate(&s.ciam, bearer).await?;
            accounts::change_password(
                &s.ciam,
                &sess,
                &old,
                &b.password,
                &b.confirm_password,
                &client,
            )
            .await?;
        }
        (None, Some(account), Some(code)) => {
            accounts::reset_password(
                &s.ciam,
                &account,
                &code,
                &b.password,
                &b.confirm_password,
                &client,
            )
            .await
            .map_err(on_account)?;
        }
        _ => {
            return Err(ApiError(ciam_core::Error::field(
                ciam_core::Reason::INVALID_PARAMETER,
                "oldPassword",
                "请提供当前密码，或账号和验证码",
                "Give oldPassword, or account and code",
            )))
        }
    }
    Ok(ok())
}

/// `POST /auth/logout`: the session is revoked on the server. Round trips: 2.
async fn logout(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    sessions::revoke(&s.ciam, &sess).await?;
    Ok(ok())
}

/// `GET /openapi.json`: the API description partner apps read. Round trips: 0.
async fn openapi() -> Response {
    (
        [("content-type", "application/json")],
        crate::openapi::DOCUMENT,
    )
        .into_response()
}
