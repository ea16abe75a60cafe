//! Signing up and in: the sign-in page's location and captcha, sending a code, registration,
//! the password and code sign-ins, the password change and reset, and sign-out. The two-factor
//! second step is two_factor.rs's, the staff sign-in staff.rs's.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang, MaybeAuthed, Params};
use crate::reply::{done, Created, Done, Reply};
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::State;
use axum::http::HeaderMap;
use ciam_core::accounts;
use ciam_core::captcha::{self, Challenge};
use ciam_core::registration::{self, Registration};
use ciam_core::username_check::{self, Availability};
use ciam_core::validate::Identity;
use ciam_core::{codes, numbers, sessions, Purpose};
use serde::{Deserialize, Serialize};

/// Where the caller is and which language it reads.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "CallerLocation"))]
pub struct Location {
    /// ISO 3166-1 alpha-2, from the CloudFront-Viewer-Country header; null without it.
    country: Option<String>,
    /// From Accept-Language: en-US or zh-CN, anything else zh-CN.
    #[cfg_attr(feature = "openapi", schemars(extend("enum" = ["zh-CN", "en-US"])))]
    language: &'static str,
}

/// Whether a username is free
///
/// Asked as the username is typed at sign-up, before any code is sent: `available`, and when
/// it is taken a free `suggestion` close to it (the name with a number; null when the three
/// tried are taken too). A username is not a sign-in identifier, and registration answers
/// USERNAME_EXIST anyway, so the answer names no account and nothing to sign in with. A name the
/// username rules refuse (2 to 32 characters, one space at most between words, no special
/// characters) is INVALID_PARAMETER on `userName`, with the rule's message. Counted per address
/// with the captcha's requests (the `Captcha` WAF rule).
///
/// Reasons: INVALID_PARAMETER.
///
/// `?userName=`. Round trips: 1, or 2 when taken (a batch read of the suggestions).
pub async fn username(
    State(s): State<AppState>,
    Params(q): Params,
) -> Result<Reply<Availability>, ApiError> {
    let raw = q.get("userName").map(String::as_str).unwrap_or_default();
    Ok(Reply(username_check::check(&s.ciam, raw).await?))
}

/// Country and language of the caller
///
/// Country from the CloudFront-Viewer-Country header when present (else null); language from
/// Accept-Language: en-US or zh-CN, anything else zh-CN.
///
/// Reasons: none.
///
/// Round trips: 0.
pub async fn location(headers: HeaderMap, Lang(lang): Lang) -> Reply<Location> {
    let country = headers
        .get("cloudfront-viewer-country")
        .and_then(|v| v.to_str().ok())
        .map(|c| c.trim().to_ascii_uppercase())
        .filter(|c| c.len() == 2 && c.chars().all(|x| x.is_ascii_uppercase()));
    Reply(Location {
        country,
        language: lang.tag(),
    })
}

/// A proof-of-work captcha challenge (ALTCHA v1)
///
/// Find `number` in 0..=maxnumber with SHA-256(salt + number) == challenge, then send
/// base64(JSON {algorithm, challenge, number, salt, signature}) as `captcha`. Expires after 5
/// minutes; single-use.
///
/// Reasons: none.
///
/// A fresh challenge. Round trips: 0.
pub async fn captcha_challenge(State(s): State<AppState>) -> Result<Reply<Challenge>, ApiError> {
    Ok(Reply(captcha::challenge(&s.ciam)?))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct SendCode {
    /// mail or mainland-China mobile
    account: String,
    purpose: Purpose,
    /// base64 ALTCHA payload
    #[cfg_attr(feature = "openapi", schemars(required))]
    captcha: Option<String>,
}

/// A code was sent.
// The fields in the order this answer has always had (a `json!` object's sorted keys).
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct SentCode {
    /// Seconds before another code may be asked for.
    resend_after: i64,
    /// Always true.
    sent: bool,
}

/// The identity rules name the field `mail` or `phone`; on the wire it is `account`.
fn on_account(mut e: ciam_core::Error) -> ciam_core::Error {
    if matches!(e.field.as_deref(), Some("mail" | "phone")) {
        e.field = Some("account".into());
    }
    e
}

/// Send a verification code
///
/// Sends a 6-digit code valid 10 minutes to a mail or a mainland-China mobile number. Answers
/// alike whether or not the identity is registered. Resend after 60 s; at most 10 per identity
/// per UTC day; a solved captcha is required. A sign-in or reset code asked for a locked
/// account: 423 VERIFICATION_ATTEMPT_CODE_LIMIT with the unlock time (unix seconds) as message,
/// and no code is sent.
///
/// A registration code for a phone number in the global cell when a mainland cell exists
/// (`CIAM_OTHER_CELL`): 400 PHONE_MAINLAND_SERVICE_ONLY with `otherCell`, before the captcha is
/// checked and before any text is sent (docs/multi-region.md §14).
///
/// A sign-in or registration code for a mail whose domain an organization routes to its own
/// sign-in with "required" (docs/organizations-connections.md §0.5): 403 ORG_SIGN_IN_REQUIRED
/// with `connection`, before the captcha is used and before anything is sent or written.
///
/// Reasons: INVALID_MAIL, INVALID_PHONE, VERIFYCAPTCHA_NOT_FOUND, VERIFYCAPTCHA_ERROR,
/// VERIFICATION_ATTEMPT_CODE_LIMIT, VERIFICATION_CODE_LIMIT, VERIFYCODE_SENDING_LIMIT,
/// PHONE_MAINLAND_SERVICE_ONLY, ORG_SIGN_IN_REQUIRED.
///
/// A sign-in code for a locked account is refused with the lock before anything is sent.
/// Round trips: 2 (1 transaction, then the write that marks the code delivered; +1 read when
/// refused, to tell which limit or until when the lock holds); a sign-in or registration code
/// to a mail at a domain that can be verified reads its owner item first (+1: 3).
pub async fn identity(
    State(s): State<AppState>,
    Lang(lang): Lang,
    Json(b): Json<SendCode>,
) -> Result<Reply<SentCode>, ApiError> {
    let id = Identity::parse(&b.account).map_err(on_account)?;
    codes::send(&s.ciam, &id, b.purpose, b.captcha.as_deref(), lang).await?;
    Ok(Reply(SentCode {
        sent: true,
        resend_after: codes::RESEND_AFTER,
    }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct Register {
    user_name: String,
    company: String,
    /// mail or mainland-China mobile
    account: String,
    /// The registration code sent to `account`.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{6}$")))]
    code: String,
    password: String,
    confirm_password: String,
    /// ISO 3166-1 alpha-2
    country: String,
    accept_terms: bool,
}

/// The account created.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct Registered {
    user_id: String,
}

/// Sign up
///
/// Every rule of the spec's §5. MAIL_EXIST/PHONE_EXIST only after the code checked out. Nothing
/// is written unless everything succeeds. A phone number in the global cell when a mainland
/// cell exists: PHONE_MAINLAND_SERVICE_ONLY with `otherCell` (docs/multi-region.md §14). A mail
/// whose domain requires its company's sign-in: ORG_SIGN_IN_REQUIRED with `connection` (the
/// company's IdP is the way in, docs/organizations-connections.md §0.5).
///
/// Reasons: INVALID_MAIL, INVALID_PHONE, PASSWORD_COMPLEXITY_ERROR, CODE_ERROR, CODE_KIND_ERROR,
/// VERIFYCODE_NOT_FOUND, VERIFICATION_CODE_LIMIT, EIAM_MAIL_PERMISSION_DENIED, MAIL_EXIST,
/// PHONE_EXIST, USERNAME_EXIST, PHONE_MAINLAND_SERVICE_ONLY, ORG_SIGN_IN_REQUIRED.
///
/// Round trips: 2 (code read beside the mail's domain owner item, one transaction), then for a mail its verified domain's enrolment
/// (1 GetItem of `DOMAIN#<domain>`; +1 read and 1 write when the domain enrols,
/// docs/organizations-domains.md §4), then the numbers' new account (3 writes side by side,
/// best effort).
pub async fn register(
    State(s): State<AppState>,
    Json(b): Json<Register>,
) -> Result<Created<Registered>, ApiError> {
    let user_id = registration::register(
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
    Ok(Reply(Registered { user_id }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PasswordLogin {
    account: String,
    password: String,
}

/// Sign in with a password
///
/// PASSWORD_ERROR alike for unknown, deactivated and wrong (a suspended account's wrong password
/// too). 5 failures lock the account for 15 minutes: VERIFICATION_ATTEMPT_CODE_LIMIT with the
/// unlock time (unix seconds) as message. NEED_TOTP_VERIFY (with `challenge`) when two-factor is
/// on. EIAM_PASSWORD_UNSET for a staff account without password. ACCOUNT_SUSPENDED (403, no
/// session, not counted as a failure) for a suspended account's right password.
/// ORG_SIGN_IN_REQUIRED (403, with `connection`; no session, not counted as a failure) for the
/// right password of a mail whose domain an organization routes to its own sign-in with
/// "required" (docs/organizations-connections.md §0.5); a wrong one answers as ever.
///
/// Reasons: PASSWORD_ERROR, VERIFICATION_ATTEMPT_CODE_LIMIT, NEED_TOTP_VERIFY,
/// EIAM_PASSWORD_UNSET, ACCOUNT_SUSPENDED, ORG_SIGN_IN_REQUIRED.
///
/// Round trips: 2 (the attempt, one conditional update of the
/// identity item that also finds the account, beside a mail's domain owner item; then the reset and the session side by side, or
/// the lock after the last allowed failure); then the numbers (`sign_in.rs`).
pub async fn login_password(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<PasswordLogin>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
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

/// Sign in with a verification code (purpose login)
///
/// Wrong codes count on the account's failure counter. MAIL_NOT_FOUND/PHONE_NOT_FOUND only
/// after the code checked out. ACCOUNT_SUSPENDED (403, no session, the code used up) for a
/// suspended account's right code. ORG_SIGN_IN_REQUIRED (403, with `connection`, no session) for
/// the right code of a mail whose domain requires its company's sign-in (a code sent before
/// the domain required it: none is sent since).
///
/// Reasons: INVALID_MAIL, INVALID_PHONE, CODE_ERROR, CODE_KIND_ERROR, VERIFYCODE_NOT_FOUND,
/// VERIFICATION_CODE_LIMIT, VERIFICATION_ATTEMPT_CODE_LIMIT, MAIL_NOT_FOUND, PHONE_NOT_FOUND,
/// NEED_TOTP_VERIFY, ACCOUNT_SUSPENDED, ORG_SIGN_IN_REQUIRED.
///
/// Round trips: 2 (the attempt, the code and a mail's domain owner item read side by side; then the
/// success transaction, which consumes the code). +1 read when no sign-in code is live (is it
/// a code of another purpose?). Then for a mail its verified domain's enrolment (1 GetItem of
/// `DOMAIN#<domain>`, docs/organizations-domains.md §4), then the numbers (`sign_in.rs`).
pub async fn login_code(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<CodeLogin>,
) -> Result<SignInReply, ApiError> {
    let signed = accounts::login_code(&s.ciam, &b.account, &b.code, &client)
        .await
        .map_err(on_account)?;
    Ok(SignInReply(signed))
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

/// Change (with a session) or reset (with a code) the password
///
/// Change: bearer + oldPassword; other sessions are revoked, this one stays;
/// PASSWORD_SAME_ERROR when unchanged. Reset: account + code (purpose resetPassword), no
/// session; clears the lock and revokes every session. A locked account (a change or a reset):
/// 423 VERIFICATION_ATTEMPT_CODE_LIMIT with the unlock time (unix seconds) as message. A reset
/// of a suspended account sets the password all the same, then answers ACCOUNT_SUSPENDED (403)
/// instead of `{"ok":true}`: the code proved the owner, who cannot sign in until reactivated.
///
/// Reasons: AUTHORIZATION_FAILED, PASSWORD_ERROR, PASSWORD_SAME_ERROR, PASSWORD_COMPLEXITY_ERROR,
/// VERIFICATION_ATTEMPT_CODE_LIMIT, INVALID_MAIL, INVALID_PHONE, CODE_ERROR, CODE_KIND_ERROR,
/// VERIFYCODE_NOT_FOUND, VERIFICATION_CODE_LIMIT, MAIL_NOT_FOUND, PHONE_NOT_FOUND,
/// EIAM_MAIL_PERMISSION_DENIED, ACCOUNT_SUSPENDED.
///
/// Change: round trips 2 (authentication, one transaction). Reset: 4 (the
/// identity's owner, the user, the code, one transaction).
pub async fn password(
    State(s): State<AppState>,
    maybe: MaybeAuthed,
    Client(client): Client,
    Json(b): Json<PasswordChange>,
) -> Result<Reply<Done>, ApiError> {
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
    Ok(done())
}

/// Sign out
///
/// Revokes the session on the server.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, the session's end).
pub async fn logout(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<Done>, ApiError> {
    sessions::revoke(&s.ciam, &sess).await?;
    Ok(done())
}
