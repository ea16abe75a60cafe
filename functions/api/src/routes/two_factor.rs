//! Two-factor routes: enrolment, fresh proofs, backup codes, and the sign-in second step.

use crate::error::ApiError;
use crate::extract::{Authed, Client, Json};
use crate::reply::{done, Done, Reply};
use crate::sign_in::SignInReply;
use crate::AppState;
use axum::extract::State;
use ciam_core::totp;
use serde::{Deserialize, Serialize};

/// The authenticator enrolment to scan.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
pub struct TotpUrl {
    /// An otpauth:// URI in Key-Uri-Format.
    url: String,
}

/// Start two-factor enrolment
///
/// Only while two-factor is off (else USER_TOTP_ENABLED). An otpauth:// URI in Key-Uri-Format:
/// issuer Ciam, the account, a Base32 secret, SHA1, 6 digits, 30 s. The same pending secret is
/// returned for 10 minutes.
///
/// Reasons: USER_TOTP_ENABLED.
///
/// Round trips: 2 (authentication, the pending secret) or 1 while a pending one is fresh.
pub async fn url(
    State(s): State<AppState>,
    Authed(sess): Authed,
) -> Result<Reply<TotpUrl>, ApiError> {
    Ok(Reply(TotpUrl {
        url: totp::enrollment_uri(&s.ciam, &sess).await?,
    }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Code {
    /// The authenticator's current code.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{6}$")))]
    code: String,
}

/// The backup codes, shown once.
#[derive(Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(rename_all = "camelCase")]
pub struct BackupCodes {
    /// shown once; stored only as hashes
    #[cfg_attr(
        feature = "openapi",
        schemars(length(min = 10, max = 10), inner(pattern(r"^[0-9]{8}$")))
    )]
    backup_codes: Vec<String>,
}

/// Confirm enrolment with a code
///
/// Needs a fresh proof (REAUTH_REQUIRED otherwise). A wrong code is TOTP_SECRET_ERROR. Other
/// sessions end. Answers the 10 backup codes once.
///
/// Reasons: REAUTH_REQUIRED, TOTP_SECRET_ERROR, USER_TOTP_ENABLED.
///
/// Round trips: 2 (authentication, one transaction).
pub async fn enable(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
    Json(b): Json<Code>,
) -> Result<Reply<BackupCodes>, ApiError> {
    let codes = totp::enable(&s.ciam, &sess, &b.code, &client).await?;
    Ok(Reply(BackupCodes {
        backup_codes: codes,
    }))
}

#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Proof {
    /// The authenticator code (two-factor on).
    code: Option<String>,
    /// The current password (two-factor off).
    password: Option<String>,
}

/// Prove who you are for sensitive changes
///
/// The authenticator code when two-factor is on, else the current password; the proof counts
/// for 5 minutes. Wrong proofs count on the account lock. Clients drop empty fields.
///
/// Reasons: PASSWORD_ERROR, TOTP_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// Round trips: 2 or 3 (authentication, the step or nothing, the session).
pub async fn verify(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Json(b): Json<Proof>,
) -> Result<Reply<Done>, ApiError> {
    totp::verify_fresh(&s.ciam, &sess, b.code.as_deref(), b.password.as_deref()).await?;
    Ok(done())
}

/// New backup codes
///
/// Needs a fresh proof. The old codes stop working at once.
///
/// Reasons: REAUTH_REQUIRED, USER_TOTP_NOT_ENABLED.
///
/// Round trips: 2 (authentication, one transaction) plus tidying of the old items.
pub async fn backup_codes(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
) -> Result<Reply<BackupCodes>, ApiError> {
    let codes = totp::regenerate(&s.ciam, &sess, &client).await?;
    Ok(Reply(BackupCodes {
        backup_codes: codes,
    }))
}

/// Turn two-factor off
///
/// Needs a fresh proof. Other sessions end; backup codes are removed.
///
/// Reasons: REAUTH_REQUIRED, USER_TOTP_NOT_ENABLED.
///
/// Round trips: 2 plus tidying of the backup codes.
pub async fn disable(
    State(s): State<AppState>,
    Authed(sess): Authed,
    Client(client): Client,
) -> Result<Reply<Done>, ApiError> {
    totp::disable(&s.ciam, &sess, &client).await?;
    Ok(done())
}

/// The second step with the authenticator's code. Both are serde's `SecondStep` (the name its refusals quote).
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "AuthenticatorStep"))]
#[serde(deny_unknown_fields, rename = "SecondStep")]
pub struct AuthenticatorStep {
    /// From NEED_TOTP_VERIFY.
    challenge: String,
    /// The authenticator's current code.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{6}$")))]
    code: String,
}

/// The second step with a backup code. Both are serde's `SecondStep` (the name its refusals quote).
#[derive(Deserialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "BackupCodeStep"))]
#[serde(deny_unknown_fields, rename = "SecondStep")]
pub struct BackupCodeStep {
    /// From NEED_TOTP_VERIFY.
    challenge: String,
    /// One of the account's backup codes.
    #[cfg_attr(feature = "openapi", schemars(pattern(r"^[0-9]{8}$")))]
    code: String,
}

/// Second sign-in step: authenticator code
///
/// `challenge` from NEED_TOTP_VERIFY (single-use, 5 minutes). Window: the current 30-second step
/// ± 1; a step once accepted is never accepted again. Wrong codes count on the account lock.
///
/// Reasons: TOTP_VERIFY_FAILED, VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// Round trips: 3 (challenge, user, transaction).
pub async fn login_totp(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<AuthenticatorStep>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
        totp::login_totp(&s.ciam, &b.challenge, &b.code, &client).await?,
    ))
}

/// Second sign-in step: backup code
///
/// An 8-digit backup code, used up by this sign-in. Wrong codes count on the account lock
/// (UNLOCKCODE_NOT_FOUND).
///
/// Reasons: UNLOCKCODE_NOT_FOUND, UNLOCKCODE_PWD_NOT_FOUND, UNLOCKCODE_TOTP_NOT_FOUND,
/// VERIFICATION_ATTEMPT_CODE_LIMIT.
///
/// Round trips: 4 (challenge, user, backup code, transaction).
pub async fn unlock_code(
    State(s): State<AppState>,
    Client(client): Client,
    Json(b): Json<BackupCodeStep>,
) -> Result<SignInReply, ApiError> {
    Ok(SignInReply(
        totp::login_backup(&s.ciam, &b.challenge, &b.code, &client).await?,
    ))
}
