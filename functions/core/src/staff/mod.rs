//! Internal staff sign-in federated to the company's OpenID Connect identity provider (spec §6).
//!
//! Staff is the first provider of `crate::federation`: its round trip (start, callback, the
//! single-use state) is `federation::flow`, its HTTP side `ciam_api::federation::oidc`. Here are
//! its own rules: the checks of the id_token's claims, linking the company identity to a Ciam
//! account by verified company mail, and the one-time login code the SPA redeems.
//!
//! Items:
//! - `STAFFSTATE#<keyed hash of state>` / `STATE` {nonce, verifier, lang, query, bindHash},
//!   10 minutes;
//! - `STAFFCODE#<keyed hash of code>` / `CODE` {userId, bindHash}, 60 seconds.
//!
//! Both are consumed by a conditional delete, so each works once even under concurrency.
//!
//! Login CSRF: a sign-in is bound to the browser that started it. The SPA keeps a random `bind`
//! (256 bits, sessionStorage) and sends only `bindHash = base64url(SHA-256(bind))` to `start`; the
//! state carries the hash to the login code, and redeeming the code needs `bind` itself. So a
//! callback or `staffCode` URL sent to someone else does not sign them in as its sender.
//!
//! Linking by mail trusts the company identity provider: it is authoritative for the company
//! mail domains, and its claims must say `email_verified: true`.
//!
//! Here: the provider's settings, the browser binding and the helpers the flow shares;
//! `claims`: the id_token's checks; `account`: linking and the one-time login code.

mod account;
mod claims;

pub use account::{issue_login_code, link, redeem};
pub use claims::{check_id_token, staff_mail, StaffClaims};

use crate::error::{Error, Result};
use crate::{random, Ciam, Lang, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key};
use sha2::{Digest, Sha256};

/// The company identity provider Ciam federates staff sign-in to.
#[derive(Clone, PartialEq, Eq)]
pub struct StaffIdp {
    /// The issuer URL; discovery is at `{issuer}/.well-known/openid-configuration`.
    pub issuer: String,
    pub client_id: String,
    pub client_secret: String,
}

impl std::fmt::Debug for StaffIdp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StaffIdp")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("client_secret", &"..")
            .finish()
    }
}

impl StaffIdp {
    /// All three set (blank counts as unset), or none: anything else is a configuration error.
    pub fn from_parts(
        issuer: Option<String>,
        client_id: Option<String>,
        client_secret: Option<String>,
    ) -> std::result::Result<Option<StaffIdp>, String> {
        let clean = |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
        match (clean(issuer), clean(client_id), clean(client_secret)) {
            (None, None, None) => Ok(None),
            (Some(issuer), Some(client_id), Some(client_secret)) => {
                if !secure_url(&issuer) {
                    return Err(
                        "the staff issuer must be an https URL (http only on localhost)".into(),
                    );
                }
                Ok(Some(StaffIdp {
                    issuer,
                    client_id,
                    client_secret,
                }))
            }
            _ => Err("staff sign-in needs the issuer, the client id and the client secret".into()),
        }
    }
}

/// The id_token's signature is not checked (see [`check_id_token`]): that rests on TLS to the
/// provider, so its issuer and the endpoints of its discovery document must be https URLs, http
/// only for a provider on this machine (tests).
pub fn secure_url(url: &str) -> bool {
    match url::Url::parse(url) {
        Ok(u) => match u.scheme() {
            "https" => u.host().is_some(),
            "http" => matches!(u.host_str(), Some("localhost" | "127.0.0.1" | "[::1]")),
            _ => false,
        },
        Err(_) => false,
    }
}

/// How long the SPA has to redeem the login code.
pub const LOGIN_CODE_TTL: i64 = 60;

/// Clock skew tolerated on the id_token's `exp`.
pub const LEEWAY: i64 = 60;

/// The longest SPA query kept across the round trip to the identity provider.
const MAX_QUERY: usize = 2048;

fn login_code_key(ciam: &Ciam, code: &str) -> Key {
    Key::new(
        format!(
            "STAFFCODE#{}",
            ciam.keys.keyed_hash("staff-code", code.as_bytes())
        ),
        "CODE",
    )
}

/// A fresh 256-bit token, base64url.
pub(crate) fn token(ciam: &Ciam) -> String {
    URL_SAFE_NO_PAD.encode(random::<32>(ciam.entropy.as_ref()))
}

/// `base64url(SHA-256(bind))`, what `start` receives of the browser's `bind`.
pub fn bind_hash(bind: &str) -> String {
    pkce_challenge(bind)
}

/// A `bindHash` is a base64url SHA-256 (43 characters); else INVALID_PARAMETER naming it.
pub fn check_bind_hash(bind_hash: &str) -> Result<()> {
    let ok = bind_hash.len() == 43
        && bind_hash
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_');
    if ok {
        Ok(())
    } else {
        Err(Error::field(
            Reason::INVALID_PARAMETER,
            "bindHash",
            "浏览器绑定值无效",
            "Invalid browser binding",
        ))
    }
}

/// The PKCE S256 challenge of a verifier (RFC 7636 §4.2).
pub fn pkce_challenge(verifier: &str) -> String {
    URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The SPA query to come back to, made safe for our own sign-in URL: no leading `?`, no
/// fragment, no earlier `staffCode`/`staffError`, nothing a header cannot carry (percent-encoded),
/// at most 2 KiB (else dropped). Parameters are kept as they came (a serviceUrl stays unencoded
/// and last, so everything from `serviceUrl=` on is kept verbatim).
pub fn return_query(raw: &str) -> String {
    let raw = raw.trim_start_matches('?');
    let raw = raw.split('#').next().unwrap_or("");
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = raw;
    while !rest.is_empty() {
        if rest.starts_with("serviceUrl=") {
            parts.push(rest);
            break;
        }
        let (part, tail) = rest.split_once('&').unwrap_or((rest, ""));
        let name = part.split('=').next().unwrap_or("");
        if !part.is_empty() && name != "staffCode" && name != "staffError" {
            parts.push(part);
        }
        rest = tail;
    }
    let mut out = String::new();
    for b in parts.join("&").bytes() {
        if (0x21..0x7f).contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    if out.len() > MAX_QUERY {
        String::new()
    } else {
        out
    }
}

/// The live item at `key`, consumed: of two concurrent takers only one deletes it. A missing,
/// expired or already taken one is AUTHORIZATION_FAILED. Round trips: 2 (read, conditional
/// delete).
pub(crate) async fn take(ciam: &Ciam, key: &Key) -> Result<Item> {
    let item = ciam
        .store
        .get(key)
        .await?
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    ciam.store
        .delete(key, Some(Cond::Exists))
        .await
        .or_reason(Reason::AUTHORIZATION_FAILED)?;
    Ok(item)
}

/// `/{lang}/passport/signin?<param>=<value>&<query>`: where every staff callback ends.
pub fn signin_url(lang: Lang, param: &str, value: &str, query: &str) -> String {
    let mut url = format!("/{}/passport/signin?{param}={value}", lang.tag());
    if !query.is_empty() {
        url.push('&');
        url.push_str(query);
    }
    url
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_return_query_is_kept_but_made_safe() {
        assert_eq!(return_query(""), "");
        assert_eq!(
            return_query("?appId=a&serviceUrl=https://x/cb?y=1&z=2"),
            "appId=a&serviceUrl=https://x/cb?y=1&z=2"
        );
        assert_eq!(return_query("staffError=X&appId=a&staffCode=c"), "appId=a");
        assert_eq!(
            return_query("a=b c\r\nSet-Cookie:x#frag"),
            "a=b%20c%0D%0ASet-Cookie:x"
        );
        assert_eq!(return_query(&"a".repeat(3000)), "");
    }

    #[test]
    fn pkce_s256_matches_rfc_7636() {
        assert_eq!(
            pkce_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn the_idp_needs_all_three_settings_or_none() {
        assert_eq!(StaffIdp::from_parts(None, Some(" ".into()), None), Ok(None));
        assert!(StaffIdp::from_parts(Some("https://idp".into()), None, None).is_err());
        let idp = StaffIdp::from_parts(
            Some("https://idp/".into()),
            Some("c".into()),
            Some("s".into()),
        )
        .unwrap()
        .unwrap();
        assert_eq!(idp.issuer, "https://idp/");
        assert!(!format!("{idp:?}").contains("\"s\""));
        for bad in ["http://idp.example", "ftp://idp.example", "idp.example"] {
            assert!(
                StaffIdp::from_parts(Some(bad.into()), Some("c".into()), Some("s".into())).is_err(),
                "{bad}"
            );
        }
        assert!(StaffIdp::from_parts(
            Some("http://127.0.0.1:9000".into()),
            Some("c".into()),
            Some("s".into())
        )
        .is_ok());
    }

    #[test]
    fn staff_urls_are_https_or_loopback_http() {
        for ok in [
            "https://idp.example/token",
            "http://127.0.0.1:9000/token",
            "http://localhost/me",
            "http://[::1]:8080/auth",
        ] {
            assert!(secure_url(ok), "{ok}");
        }
        for bad in [
            "http://idp.example/token",
            "http://10.0.0.1/token",
            "http://localhost.evil.example/me",
            "ftp://idp.example/auth",
            "/token",
            "",
        ] {
            assert!(!secure_url(bad), "{bad}");
        }
    }

    #[test]
    fn a_bind_hash_is_a_base64url_sha256() {
        let h = bind_hash("a random bind");
        assert_eq!(h.len(), 43);
        assert!(check_bind_hash(&h).is_ok());
        for bad in [
            "",
            "short",
            &"a".repeat(44),
            &format!("{}=", &h[..42]),
            &"+".repeat(43),
        ] {
            assert!(check_bind_hash(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn email_verified_may_be_a_boolean_or_a_string() {
        let from_strings = StaffClaims::from_json(&serde_json::json!({
            "sub": "E-1", "email": "a@b", "email_verified": "TRUE"
        }));
        assert_eq!(from_strings.email_verified, Some(true));
        let missing = StaffClaims::from_json(&serde_json::json!({ "sub": "E-1", "email": "a@b" }));
        assert_eq!(missing.email_verified, None);
    }
}
