//! Internal staff sign-in federated to the company's OpenID Connect identity provider (spec §6).
//! Longer than 500 lines on purpose: one flow (start, callback, login code) whose steps share
//! the state, binding and claim rules, kept together with its tests.
//!
//! The HTTP side (discovery, the token exchange, userinfo) lives in the api crate; here are the
//! rules: the single-use state of a sign-in in progress, the checks of the id_token's claims,
//! linking the company identity to a Ciam account, and the one-time login code the SPA redeems.
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

use crate::accounts::{create_ops, finish_login, SignedIn, Who};
use crate::client::ClientInfo;
use crate::error::{Error, Result};
use crate::lock::{clear_ops, ensure_unlocked};
use crate::user::{active_user, profile_key, unique_key, User};
use crate::validate::{self, Email, Identity};
use crate::{random, random_digits, Ciam, Lang, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, TxOp, Update};
use serde_json::Value;
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

/// How long a staff sign-in may stay at the identity provider.
pub const STATE_TTL: i64 = 600;
/// How long the SPA has to redeem the login code.
pub const LOGIN_CODE_TTL: i64 = 60;
/// Clock skew tolerated on the id_token's `exp`.
pub const LEEWAY: i64 = 60;
/// The longest SPA query kept across the round trip to the identity provider.
const MAX_QUERY: usize = 2048;

/// Where the company identity provider sends the browser back (registered there).
pub fn redirect_uri(ciam: &Ciam) -> String {
    format!("{}/ciam/v1/auth/staff/callback", ciam.config.public_url)
}

fn state_key(ciam: &Ciam, state: &str) -> Key {
    Key::new(
        format!(
            "STAFFSTATE#{}",
            ciam.keys.keyed_hash("staff-state", state.as_bytes())
        ),
        "STATE",
    )
}

fn login_code_key(ciam: &Ciam, code: &str) -> Key {
    Key::new(
        format!(
            "STAFFCODE#{}",
            ciam.keys.keyed_hash("staff-code", code.as_bytes())
        ),
        "CODE",
    )
}

fn token(ciam: &Ciam) -> String {
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

/// A staff sign-in sent to the identity provider: what goes into the authorization request.
#[derive(Debug)]
pub struct Started {
    pub state: String,
    pub nonce: String,
    pub code_challenge: String,
}

/// Stores the state of a new staff sign-in (10 minutes), bound to the browser's `bind_hash`.
/// Round trips: 1.
pub async fn start(ciam: &Ciam, lang: Lang, query: &str, bind_hash: &str) -> Result<Started> {
    check_bind_hash(bind_hash)?;
    let state = token(ciam);
    let nonce = token(ciam);
    let verifier = token(ciam);
    let item = Item::new(state_key(ciam, &state))
        .with("nonce", nonce.as_str())
        .with("verifier", verifier.as_str())
        .with("lang", lang.tag())
        .with("query", return_query(query))
        .with("bindHash", bind_hash)
        .expires(ciam.now() + STATE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(Started {
        state,
        nonce,
        code_challenge: pkce_challenge(&verifier),
    })
}

/// A staff sign-in coming back from the identity provider.
#[derive(Debug)]
pub struct Pending {
    pub nonce: String,
    pub verifier: String,
    pub lang: Lang,
    /// Already safe for [`signin_url`].
    pub query: String,
    /// The hash of the `bind` of the browser that started the sign-in.
    pub bind_hash: String,
}

/// Consumes the state: a second callback with it (a replay), an unknown or an expired one is
/// AUTHORIZATION_FAILED. Round trips: 2 (read, conditional delete).
pub async fn take_state(ciam: &Ciam, state: &str) -> Result<Pending> {
    if state.is_empty() || state.len() > 200 {
        return Err(Reason::AUTHORIZATION_FAILED.into());
    }
    let item = take(ciam, &state_key(ciam, state)).await?;
    let s = |n: &str| item.s(n).unwrap_or_default().to_owned();
    Ok(Pending {
        nonce: s("nonce"),
        verifier: s("verifier"),
        lang: item.s("lang").and_then(Lang::parse_tag).unwrap_or_default(),
        query: s("query"),
        bind_hash: s("bindHash"),
    })
}

/// The live item at `key`, consumed: of two concurrent takers only one deletes it. A missing,
/// expired or already taken one is AUTHORIZATION_FAILED. Round trips: 2 (read, conditional
/// delete).
async fn take(ciam: &Ciam, key: &Key) -> Result<Item> {
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

/// Who the identity provider says signed in.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct StaffClaims {
    pub sub: String,
    pub email: Option<String>,
    pub email_verified: Option<bool>,
    pub name: Option<String>,
}

impl StaffClaims {
    /// Reads `sub`, `email`, `email_verified` and `name` from a claims object (id_token payload
    /// or userinfo answer).
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

/// A username from the mail's local part: 2 to 32 characters, no spaces; `attempt` > 0 adds a
/// random suffix.
fn username_candidate(ciam: &Ciam, mail: &Email, attempt: usize) -> String {
    let local = mail.as_str().split('@').next().unwrap_or_default();
    let mut base: String = local.chars().take(24).collect();
    if base.chars().count() < 2 {
        base = format!("staff-{base}");
    }
    if attempt == 0 {
        base
    } else {
        format!("{base}-{}", random_digits(ciam.entropy.as_ref(), 4))
    }
}

/// Links the company identity to its Ciam account and returns the account's id: the account
/// that owns the mail gets `eiamUid = sub` (refused with EIAM_MAIL_PERMISSION_DENIED when it is
/// linked to another company identity); without one, an internal account is created (no
/// password; the user, the mail and the username in one transaction, like registration).
/// Round trips: 2 reads (mail, user), then at most 1 write (more only on a lost race or a taken
/// username).
pub async fn link(ciam: &Ciam, claims: &StaffClaims, mail: &Email) -> Result<String> {
    let id = Identity::Mail(mail.clone());
    let sub = claims.sub.as_str();
    for attempt in 0..5 {
        if let Some(owner) = ciam.store.get(&unique_key(id.unique_pk())).await? {
            let uid = owner.s("userId").unwrap_or_default();
            let user = active_user(ciam, uid).await?.ok_or_else(|| Error {
                cause: Some("the mail's owner is gone".into()),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            })?;
            return match user.eiam_uid.as_deref() {
                Some(linked) if linked == sub => Ok(user.id),
                Some(_) => Err(Error {
                    cause: Some("the account is linked to another company identity".into()),
                    ..Error::new(Reason::EIAM_MAIL_PERMISSION_DENIED)
                }),
                None => {
                    let cond = Cond::Exists
                        .and(Cond::eq("status", "active"))
                        .and(Cond::attr_not_exists("eiamUid").or(Cond::eq("eiamUid", sub)));
                    ciam.store
                        .update(
                            &profile_key(&user.id),
                            vec![Update::Set("eiamUid".into(), sub.into())],
                            Some(cond),
                        )
                        .await
                        .or_reason(Error {
                            cause: Some("the account changed while linking".into()),
                            ..Error::new(Reason::EIAM_MAIL_PERMISSION_DENIED)
                        })
                        .map(|_| user.id)
                }
            };
        }
        let display_name = claims
            .name
            .as_deref()
            .and_then(|n| validate::optional_text("displayName", n, 50).ok().flatten());
        let user = User {
            id: ciam.new_id(),
            user_name: username_candidate(ciam, mail, attempt),
            mail: Some(mail.as_str().to_owned()),
            display_name,
            advertisement: "unsubscribe".into(),
            eiam_uid: Some(sub.to_owned()),
            created_at: ciam.now(),
            ..User::default()
        };
        match ciam.store.transact(create_ops(&user, &id)).await {
            Ok(()) => return Ok(user.id),
            // Someone took the mail meanwhile (a concurrent first sign-in): link to it.
            Err(e) if e.condition_failed_at(1) => continue,
            // The username is taken: try one with a suffix.
            Err(e) if e.condition_failed_at(2) => continue,
            Err(e) => return Err(e.into()),
        }
    }
    Err(Reason::SERVICE_UNAVAILABLE.into())
}

/// A one-time login code for the account (60 s, stored as a keyed hash), bound to the browser
/// that started the sign-in (the state's `bind_hash`). Round trips: 1.
pub async fn issue_login_code(ciam: &Ciam, user_id: &str, bind_hash: &str) -> Result<String> {
    let code = token(ciam);
    let item = Item::new(login_code_key(ciam, &code))
        .with("userId", user_id)
        .with("bindHash", bind_hash)
        .expires(ciam.now() + LOGIN_CODE_TTL);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(code)
}

/// `POST /auth/login/staff`: redeems the login code once; then exactly what a password sign-in
/// does (a session, or NEED_TOTP_VERIFY with a challenge when two-factor is on). An unknown,
/// expired or used code, or a `bind` that is not the one of the browser that started the
/// sign-in, is AUTHORIZATION_FAILED (the code is used up either way). Round trips: 3 (code read,
/// conditional delete, user) and the sign-in's write.
pub async fn redeem(ciam: &Ciam, code: &str, bind: &str, client: &ClientInfo) -> Result<SignedIn> {
    if code.is_empty() || code.len() > 200 {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "code",
            "登录码无效",
            "Invalid login code",
        ));
    }
    if bind.is_empty() || bind.len() > 200 {
        return Err(Error::field(
            Reason::INVALID_PARAMETER,
            "bind",
            "浏览器绑定值无效",
            "Invalid browser binding",
        ));
    }
    let item = take(ciam, &login_code_key(ciam, code)).await?;
    let expected = item.s("bindHash").unwrap_or_default();
    let presented = bind_hash(bind);
    if expected.is_empty()
        || !bool::from(subtle::ConstantTimeEq::ct_eq(
            presented.as_bytes(),
            expected.as_bytes(),
        ))
    {
        return Err(Error {
            cause: Some("the login code was started by another browser".into()),
            ..Error::new(Reason::AUTHORIZATION_FAILED)
        });
    }
    let uid = item.s("userId").unwrap_or_default();
    let user = active_user(ciam, uid)
        .await?
        .filter(|u| u.eiam_uid.is_some())
        .ok_or(Reason::AUTHORIZATION_FAILED)?;
    ensure_unlocked(&user, ciam.now())?;
    let clear = clear_ops(&user).map(|ops| TxOp::Update {
        key: profile_key(&user.id),
        ops,
        cond: Some(Cond::Exists),
    });
    let who = Who::from(&user);
    let lost = Reason::AUTHORIZATION_FAILED;
    finish_login(ciam, who, client, clear.into_iter().collect(), lost).await
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
