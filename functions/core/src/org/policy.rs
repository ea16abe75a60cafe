//! The organization's sign-in policy (`mfaRequired`, `allowedMethods`; docs/organizations-design.md
//! §1): what it asks of a person who signs in through one of its connections, and of a session
//! that carries it into a code or a ticket (docs/oidc.md "Organizations").
//!
//! - [`second_factor_missing`]: the one `mfaRequired` rule, at the company sign-in (the identity
//!   provider's second factor or the account's own) and at the organization's choice (the
//!   session's `amr`).
//! - [`METHODS`]: the names `allowedMethods` holds ([`check_methods`] refuses others).
//! - [`of_session`]: what the organization asks of a session before its `org_id` goes into a
//!   code or ticket ([`Need`]).

use super::Settings;
use crate::error::{Error, Result};
use crate::federation::ProviderId;
use crate::sessions::Session;
use crate::Reason;
use serde::Serialize;

/// The sign-in methods an organization may allow (`allowedMethods`; empty: every one):
/// `password`, `code` (a one-time code to the account's mail or phone), `passkey` (as the first
/// step), the public providers (`wechat`, `wecom`, `dingtalk`, `feishu`), and `organization`
/// (the company sign-in through one of the organization's own connections).
pub const METHODS: [&str; 8] = [
    "password",
    "code",
    "passkey",
    "wechat",
    "wecom",
    "dingtalk",
    "feishu",
    "organization",
];

/// The method name of a sign-in through provider `p` (`organization` for a connection's).
pub fn method_of_provider(p: ProviderId) -> &'static str {
    match p {
        ProviderId::Org => "organization",
        p => p.name(),
    }
}

/// `allowedMethods` as given: each one of [`METHODS`], each once (sorted in [`METHODS`]'
/// order); else INVALID_PARAMETER naming `allowedMethods`.
pub fn check_methods(given: &[String]) -> Result<Vec<String>> {
    if let Some(bad) = given.iter().find(|m| !METHODS.contains(&m.as_str())) {
        return Err(Error {
            cause: Some(format!("unknown sign-in method {bad}")),
            ..Error::field(
                Reason::INVALID_PARAMETER,
                "allowedMethods",
                "未知的登录方式",
                "Unknown sign-in method",
            )
        });
    }
    Ok(METHODS
        .iter()
        .filter(|m| given.iter().any(|g| g == *m))
        .map(|m| (*m).to_owned())
        .collect())
}

/// The `amr` values that are a second factor (the console's gate reads the same ones): TOTP or
/// a backup code (`otp`), a passkey (`hwk`, `swk`: with user verification, so more than one
/// factor by itself), or an identity provider's `mfa`.
pub fn has_second_factor(amr: &[String]) -> bool {
    amr.iter()
        .any(|m| crate::console::SECOND_FACTORS.contains(&m.as_str()))
}

/// The one `mfaRequired` rule: an organization that requires a second factor (`required`), a
/// sign-in that made none (`made`), and an account that has none to give (`has`). The company
/// sign-in refuses then (`federation::org_sign_in::arrive` with the identity provider's second
/// factor and the account's authenticator app, and the login code's redemption,
/// `federation::links::redeem`, again); the organization's choice ([`of_session`], with the
/// session's `amr` and the account's authenticator app or passkeys) sends the person to turn
/// one on.
pub fn second_factor_missing(required: bool, made: bool, has: bool) -> bool {
    required && !made && !has
}

/// What the organization's policy asks of a session before its `org_id` goes into a code or a
/// ticket.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(schemars::JsonSchema))]
#[cfg_attr(feature = "openapi", schemars(rename = "OrgNeed"))]
#[serde(rename_all = "camelCase")]
pub enum Need {
    /// `mfaRequired` and the session made no second factor, but the account has one: a proof
    /// with it (POST /auth/totp/verify with the code, or POST /auth/reauth/passkey) adds it to
    /// the session, then the request goes on.
    StepUp,
    /// `mfaRequired` and the account has no second factor: it must turn one on first (the
    /// security centre), then step up.
    SecondFactor,
    /// The session's sign-in method is not one of `allowedMethods`: sign in again with one.
    Method,
}

/// What `settings` ask of session `s` (None: nothing). The method is judged first: a step-up
/// does not change how the session signed in. Round trips: 0 (the session's user and `amr`).
pub fn of_session(settings: &Settings, s: &Session) -> Option<Need> {
    let allowed = &settings.allowed_methods;
    if !allowed.is_empty() && !s.method().is_some_and(|m| allowed.iter().any(|a| a == m)) {
        return Some(Need::Method);
    }
    if !settings.mfa_required || has_second_factor(&s.amr) {
        return None;
    }
    let has = s.user.enable_totp || s.user.passkeys > 0;
    Some(if second_factor_missing(true, false, has) {
        Need::SecondFactor
    } else {
        Need::StepUp
    })
}

/// The refusal of a code or ticket whose organization asks `need` of the session: 403
/// ORG_MFA_REQUIRED (a second factor) or ORG_METHOD_NOT_ALLOWED (the sign-in method).
pub fn refusal(need: Need) -> Error {
    match need {
        Need::StepUp | Need::SecondFactor => Error {
            cause: Some("the organization requires a second factor".into()),
            ..Error::new(Reason::ORG_MFA_REQUIRED)
        },
        Need::Method => Error {
            cause: Some("the organization does not allow the session's sign-in method".into()),
            ..Error::new(Reason::ORG_METHOD_NOT_ALLOWED)
        },
    }
}
