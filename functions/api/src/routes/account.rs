//! Account changes: marketing opt-in, mail and phone binding, deactivation.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json, Lang};
use crate::reply::{done, Done, Reply};
use crate::AppState;
use axum::extract::State;
use ciam_core::changes;
use ciam_core::user::UserInfo;
use ciam_core::validate::{Email, Identity, Phone};
use serde::Deserialize;

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Advertisement {
    #[cfg_attr(
        feature = "openapi",
        schemars(extend("enum" = ["subscribe", "unsubscribe"]))
    )]
    advertisement: String,
}

/// Marketing opt-in
///
/// `subscribe` or `unsubscribe`.
///
/// Reasons: none.
///
/// Round trips: 2 (authentication, one update).
pub async fn advertisement(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<Advertisement>,
) -> Result<Reply<UserInfo>, ApiError> {
    Ok(Reply(
        changes::set_advertisement(&s.ciam, &sess, &b.advertisement).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewMail {
    mail: String,
    /// The code (purpose bind) sent to the new address.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{6}$")))]
    code: String,
}

/// Bind or replace the e-mail
///
/// The new address must be verified by a code (purpose bind) and differ from the current one;
/// needs a fresh proof (REAUTH_REQUIRED). Uniqueness moves in one transaction (MAIL_EXIST when
/// taken). The old address is notified. Staff accounts cannot change their mail
/// (EIAM_MAIL_PERMISSION_DENIED).
///
/// Reasons: INVALID_MAIL, REAUTH_REQUIRED, CODE_ERROR, CODE_KIND_ERROR, VERIFYCODE_NOT_FOUND,
/// VERIFICATION_CODE_LIMIT, MAIL_EXIST, EIAM_MAIL_PERMISSION_DENIED.
///
/// Round trips: 3 (authentication, code, one transaction) + the notice, and the verified
/// domain's enrolment (1 GetItem of `DOMAIN#<domain>`, docs/organizations-domains.md §4).
pub async fn mail(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Json(b): Json<NewMail>,
) -> Result<Reply<UserInfo>, ApiError> {
    let new = Identity::Mail(Email::parse(&b.mail)?);
    Ok(Reply(
        changes::bind(&s.ciam, &sess, new, &b.code, lang, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct NewPhone {
    phone: String,
    /// The code (purpose bind) sent to the new number.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{6}$")))]
    code: String,
}

/// Bind or replace the phone
///
/// As /auth/mail, for a mainland-China mobile number (PHONE_EXIST when taken).
///
/// Reasons: INVALID_PHONE, REAUTH_REQUIRED, CODE_ERROR, CODE_KIND_ERROR, VERIFYCODE_NOT_FOUND,
/// VERIFICATION_CODE_LIMIT, PHONE_EXIST, EIAM_MAIL_PERMISSION_DENIED.
///
/// Round trips: 3 (authentication, code, one transaction) + the notice.
pub async fn phone(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Lang(lang): Lang,
    Json(b): Json<NewPhone>,
) -> Result<Reply<UserInfo>, ApiError> {
    let new = Identity::Phone(Phone::parse(&b.phone)?);
    Ok(Reply(
        changes::bind(&s.ciam, &sess, new, &b.code, lang, &client).await?,
    ))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Deactivation {
    /// The current password (two-factor off).
    password: Option<String>,
    /// The authenticator code (two-factor on).
    code: Option<String>,
}

/// Deactivate the account
///
/// A proof in the body (the password, or the authenticator code when two-factor is on) or one
/// from the last 5 minutes. Staff accounts cannot deactivate (EIAM_DEACTIVATE_ERROR). Ends
/// every session; releases the mail and phone; keeps the username reserved; a later sign-in
/// answers PASSWORD_ERROR. See docs/api.md.
///
/// Reasons: REAUTH_REQUIRED, PASSWORD_ERROR, TOTP_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT,
/// EIAM_DEACTIVATE_ERROR.
///
/// Round trips: 2-3 (authentication, proof, one transaction) plus tidying of codes, backup
/// codes, consents and the avatar blob, then the numbers' deactivation (2 writes side by side,
/// best effort).
pub async fn deactivation(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Lang(lang): Lang,
    Json(b): Json<Deactivation>,
) -> Result<Reply<Done>, ApiError> {
    changes::deactivate(
        &s.ciam,
        &sess,
        b.password.as_deref(),
        b.code.as_deref(),
        lang,
    )
    .await?;
    ciam_core::numbers::count_deactivation(&s.ciam).await;
    Ok(done())
}
