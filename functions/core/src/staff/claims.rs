//! What the identity provider says about who signed in, and the checks it must pass.

use super::{StaffIdp, LEEWAY};
use crate::error::{Error, Result};
use crate::validate::Email;
use crate::{Ciam, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde_json::Value;

/// Who the identity provider says signed in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaffClaims {
    pub sub: String,
    pub email: Option<String>,
    pub email_verified: Option<bool>,
    pub name: Option<String>,
    /// How the person authenticated at the provider (RFC 8176 values), from the id_token.
    pub amr: Vec<String>,
    /// The authentication context class the provider reached, from the id_token.
    pub acr: Option<String>,
}

/// The provider's `amr` values that mean a second factor (design §2).
const MFA_AMR: [&str; 3] = ["mfa", "otp", "hwk"];

impl StaffClaims {
    /// Whether the provider says the person used a second factor: its `amr` holds `mfa`, `otp`
    /// or `hwk`, or its `acr` is one of `mfa_acr` (`Config::staff_mfa_acr`).
    pub fn did_mfa(&self, mfa_acr: &[String]) -> bool {
        self.amr.iter().any(|m| MFA_AMR.contains(&m.as_str()))
            || self.acr.as_ref().is_some_and(|a| mfa_acr.contains(a))
    }

    /// Reads `sub`, `email`, `email_verified`, `name`, `amr` and `acr` from a claims object
    /// (id_token payload or userinfo answer).
    pub fn from_json(v: &Value) -> StaffClaims {
        let s = |n: &str| v.get(n).and_then(Value::as_str).map(str::to_owned);
        StaffClaims {
            sub: s("sub").unwrap_or_default(),
            email: s("email"),
            email_verified: v.get("email_verified").and_then(|b| {
                b.as_bool()
                    .or_else(|| b.as_str().map(|s| s.eq_ignore_ascii_case("true")))
            }),
            name: s("name"),
            amr: v
                .get("amr")
                .and_then(Value::as_array)
                .map(|l| {
                    l.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default(),
            acr: s("acr"),
        }
    }
}

fn rejected(cause: &str) -> Error {
    Error {
        cause: Some(format!("id_token: {cause}")),
        ..Error::new(Reason::AUTHORIZATION_FAILED)
    }
}

/// Checks the id_token received from the token endpoint: `iss`, `aud` (and `azp` when there are
/// several audiences), `exp` against Ciam's clock, and the `nonce` of this sign-in.
///
/// The signature is not checked: the token came straight from the identity provider's token
/// endpoint over TLS, in answer to Ciam's own authenticated request (client_secret_basic), and
/// OpenID Connect Core 1.0 §3.1.3.7 (item 6) allows the TLS server validation to stand in for
/// the signature check in that case.
pub fn check_id_token(
    ciam: &Ciam,
    idp: &StaffIdp,
    id_token: &str,
    nonce: &str,
) -> Result<StaffClaims> {
    let mut parts = id_token.split('.');
    let (Some(_), Some(payload), Some(_), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(rejected("not a JWT"));
    };
    let bytes = URL_SAFE_NO_PAD
        .decode(payload.trim_end_matches('='))
        .map_err(|_| rejected("payload is not base64url"))?;
    let claims: Value =
        serde_json::from_slice(&bytes).map_err(|_| rejected("payload is not JSON"))?;
    if claims.get("iss").and_then(Value::as_str) != Some(idp.issuer.as_str()) {
        return Err(rejected("wrong iss"));
    }
    let auds: Vec<&str> = match claims.get("aud") {
        Some(Value::String(a)) => vec![a.as_str()],
        Some(Value::Array(l)) => l.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    if !auds.contains(&idp.client_id.as_str()) {
        return Err(rejected("wrong aud"));
    }
    if auds.len() > 1 && claims.get("azp").and_then(Value::as_str) != Some(idp.client_id.as_str()) {
        return Err(rejected("wrong azp"));
    }
    match claims.get("exp").and_then(Value::as_i64) {
        Some(exp) if exp + LEEWAY > ciam.now() => {}
        _ => return Err(rejected("expired")),
    }
    let got = claims.get("nonce").and_then(Value::as_str).unwrap_or("");
    if nonce.is_empty()
        || !bool::from(subtle::ConstantTimeEq::ct_eq(
            got.as_bytes(),
            nonce.as_bytes(),
        ))
    {
        return Err(rejected("wrong nonce"));
    }
    let c = StaffClaims::from_json(&claims);
    if c.sub.is_empty() || c.sub.len() > 255 {
        return Err(rejected("no sub"));
    }
    Ok(c)
}

/// The staff mail of `claims`: present, declared verified (`email_verified: true`), and in a
/// company domain; else EIAM_INVALID_MAIL. The company identity provider is authoritative for
/// the company domains: [`link`] joins an existing account by this mail on its word.
pub fn staff_mail(ciam: &Ciam, claims: &StaffClaims) -> Result<Email> {
    let refuse = |cause: &str| Error {
        cause: Some(cause.to_owned()),
        ..Error::new(Reason::EIAM_INVALID_MAIL)
    };
    let mail = claims
        .email
        .as_deref()
        .ok_or_else(|| refuse("the identity provider gave no email"))?;
    let mail = Email::parse(mail).map_err(|_| refuse("the email is not valid"))?;
    if claims.email_verified != Some(true) {
        return Err(refuse("the email is not verified"));
    }
    if !ciam.is_internal_mail(&mail) {
        return Err(refuse("the email is not in a company domain"));
    }
    Ok(mail)
}
