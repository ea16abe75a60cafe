//! Signing up and in: the sign-in page's location and captcha, sending a code, registration,
//! the password and code sign-ins, the password change and reset, and sign-out. The two-factor
//! second step is two_factor.rs's, the staff sign-in staff.rs's.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang, MaybeAuthed};
use crate::sign_in::signed_in;
use crate::AppState;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use ciam_core::accounts::{self, Registration};
use ciam_core::validate::Identity;
use ciam_core::{captcha, codes, numbers, sessions, Purpose};
use serde::{Deserialize, Serialize};
use serde_json::json;

type ApiResult = Result<Response, ApiError>;

fn ok() -> Response {
    axum::Json(json!({ "ok": true })).into_response()
}

#[derive(Serialize)]
pub struct Location {
    country: Option<String>,
    language: &'static str,
}

/// `GET /auth/location`. Round trips: 0.
pub async fn location(headers: HeaderMap, Lang(lang): Lang) -> Response {
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
pub async fn captcha_challenge(State(s): State<AppState>) -> ApiResult {
    Ok(axum::Json(captcha::challenge(&s.ciam)?).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendCode {
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

/// `POST /auth/identity`: sends a code. Answers alike whether or not the identity is registered;
/// a sign-in code for a locked account is refused with the lock before anything is sent.
/// Round trips: 2 (1 transaction, then the write that marks the code delivered; +1 read when
/// refused, to tell which limit or until when the lock holds).
pub async fn identity(
    State(s): State<AppState>,
    Lang(lang): Lang,
    Json(b): Json<SendCode>,
) -> ApiResult {
    let id = Identity::parse(&b.account).map_err(on_account)?;
    codes::send(&s.ciam, &id, b.purpose, b.captcha.as_deref(), lang).await?;
    Ok(axum::Json(json!({ "sent": true, "resendAfter": codes::RESEND_AFTER })).into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Register {
    user_name: String,
    company: String,
    account: String,
    code: String,
    password: String,
    confirm_password: String,
    country: String,
    accept_terms: bool,
}

/// `POST /auth/register`. Round trips: 2 (code read, one transaction), then the numbers' new
/// account (3 writes side by side, best effort).
pub async fn register(State(s): State<AppState>, Json(b): Json<Register>) -> ApiResult {
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
    numbers::count_new_account(&s.ciam).await;
    Ok((
        StatusCode::CREATED,
        axum::Json(json!({ "userId": user_id })),
    )
        .into_response())
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PasswordLogin {
    account: String,
    password: String,
}

/// `POST /auth/login/password`. Round trips: 2 (the attempt, one conditional update of the
/// identity item that also finds the account; then the reset and the session side by side, or
/// the lock after the last allowed failure); then the numbers (`sign_in.rs`).
pub async fn login_password(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<PasswordLogin>,
) -> ApiResult {
    Ok(signed_in(
        accounts::login_password(&s.ciam, &b.account, &b.password, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct CodeLogin {
    account: String,
    code: String,
}

/// `POST /auth/login/code`. Round trips: 2 (the attempt and the code read side by side; then the
/// success transaction, which consumes the code). +1 read when no sign-in code is live (is it
/// a code of another purpose?). Then the numbers (`sign_in.rs`).
pub async fn login_code(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<CodeLogin>,
) -> ApiResult {
    let signed = accounts::login_code(&s.ciam, &b.account, &b.code, &client)
        .await
        .map_err(on_account)?;
    Ok(signed_in(signed))
}

/// Both shapes of `PATCH /auth/pwd`: with a session and `oldPassword` (change), or with
/// `account` and `code` and no session (find password).
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PasswordChange {
    old_password: Option<String>,
    account: Option<String>,
    code: Option<String>,
    password: String,
    confirm_password: String,
}

/// `PATCH /auth/pwd`. Change: round trips 2 (authentication, one transaction). Reset: 4 (the
/// identity's owner, the user, the code, one transaction).
pub async fn password(
    State(s): State<AppState>,
    maybe: MaybeAuthed,
    Client(client): Client,
    Json(b): Json<PasswordChange>,
) -> ApiResult {
    match (b.old_password, b.account, b.code) {
        (Some(old), None, None) => {
            let sess = maybe.session(&s).await?;
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

/// `POST /auth/logout`: the session is revoked on the server. Round trips: 2 (authentication,
/// the session's end).
pub async fn logout(State(s): State<AppState>, Authed(sess): Authed) -> ApiResult {
    sessions::revoke(&s.ciam, &sess).await?;
    Ok(ok())
}
