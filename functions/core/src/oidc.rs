//! The OpenID Connect provider beside the tickets: the authorization code flow with PKCE (S256
//! only), confidential clients only (an app's `appId` and secret), ES256 id_tokens.
//!
//! - The issuer is `{config.public_url}/ciam/v1/oidc`; an app's registered service URLs are its
//!   redirect URIs, matched exactly.
//! - `authorize` stores the request (`OIDCREQ#<id>` / `OIDCREQ`, 10 minutes) and the browser goes
//!   to the consent screen with its id; `approve` consumes it (single use) and, in one
//!   transaction, writes the code (`OIDCCODE#<keyed hash>` / `OIDCCODE`, 5 minutes), the
//!   remembered consent and the recent-app item.
//! - `token` checks client, redirect URI and PKCE verifier, writes an access token
//!   (`OIDCTOKEN#<keyed hash>` / `OIDCTOKEN`, 1 hour) for `userinfo`, and burns the code by a
//!   conditional update (of concurrent redemptions one wins) that turns it into a tombstone
//!   naming the token's hash and living as long as the token. A failed attempt deletes the code;
//!   a second redemption finds the tombstone and deletes the token (RFC 6749 §4.1.2).
//! - `userinfo` serves a token only while its user is active, not signed out everywhere since,
//!   and the consent to the app still stands (revoking it stops the app's tokens).
//! - id_tokens are signed by `Keys::oidc_signer` (`crate::signer`): in AWS a KMS key, elsewhere
//!   keys derived from the root per version (`Keys::es256`), signing with
//!   `config.oidc_key_version` (N) while the JWKS publishes N-1, N and N+1, so that a rotation
//!   switches to a key that clients have already cached and old id_tokens still verify.
//! - The provider needs `config.public_url` (its issuer): while it is empty (a Lambda deployed
//!   without `CIAM_PUBLIC_URL`) discovery, authorize, the request views, token and userinfo answer
//!   503 SERVICE_UNAVAILABLE (`configured`).
//!
//! Errors of the protocol endpoints are RFC 6749 `{error, error_description}` (`OAuthError`),
//! which partners' libraries expect; the endpoints the SPA calls use the Reason catalogue.

use crate::apps::{self, app_key, with_params};
use crate::consents::{self, consent_key};
use crate::error::Result;
use crate::sessions::Session;
pub use crate::signer::sign_jwt;
use crate::signer::OidcSigner;
use crate::tickets;
use crate::user::{active_user, profile_key, User};
use crate::{random, Ciam, Error, Lang, LostRace, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::{Cond, Item, Key, StoreError, TxOp, Update, Value};
use serde::Serialize;
use serde_json::{json, Map, Value as Json};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// Where the provider's endpoints live, below the public URL.
pub const PATH: &str = "/ciam/v1/oidc";
/// How long a stored authorization request waits for the user.
pub const REQUEST_SECS: i64 = 10 * 60;
/// How long an authorization code may wait for its redemption.
pub const CODE_SECS: i64 = 5 * 60;
/// Lifetime of access tokens (for userinfo) and of id_tokens.
pub const TOKEN_SECS: i64 = 60 * 60;
/// The scope every request must carry.
pub const OPENID: &str = "openid";
/// Longest `state` and `nonce` kept.
const MAX_ECHO: usize = 1024;

const REQUEST_PREFIX: &str = "OIDCREQ#";
const CODE_LABEL: &str = "oidc-code";
const TOKEN_LABEL: &str = "oidc-access-token";

/// An RFC 6749 error: `{error, error_description}` with its status.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OAuthError {
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    pub fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }

    /// 401 for bad client credentials and bad access tokens, 500/503 for our failures, else 400.
    pub fn status(&self) -> u16 {
        match self.error {
            "invalid_client" | "invalid_token" => 401,
            "server_error" => 500,
            "temporarily_unavailable" => 503,
            _ => 400,
        }
    }

    pub fn body(&self) -> Json {
        json!({ "error": self.error, "error_description": self.description })
    }
}

impl From<StoreError> for OAuthError {
    fn from(e: StoreError) -> Self {
        tracing::error!(cause = %e, "oidc: store failure");
        match e {
            StoreError::Conflict | StoreError::TxCanceled(_) => {
                OAuthError::new("temporarily_unavailable", "busy, retry")
            }
            _ => OAuthError::new("server_error", "internal error"),
        }
    }
}

fn b64(bytes: &[u8]) -> String {
    URL_SAFE_NO_PAD.encode(bytes)
}

/// SERVICE_UNAVAILABLE while the deployment does not know its public URL: the issuer would be
/// wrong, so the provider does not answer at all.
pub fn configured(ciam: &Ciam) -> Result<()> {
    if ciam.config.public_url.trim().is_empty() {
        return Err(Error {
            cause: Some("the public URL (CIAM_PUBLIC_URL) is not configured".to_owned()),
            ..Error::new(Reason::SERVICE_UNAVAILABLE)
        });
    }
    Ok(())
}

/// `{public_url}/ciam/v1/oidc`.
pub fn issuer(ciam: &Ciam) -> String {
    format!("{}{PATH}", ciam.config.public_url.trim_end_matches('/'))
}

/// What signs id_tokens now and names the published keys.
pub fn signer(ciam: &Ciam) -> std::sync::Arc<dyn OidcSigner> {
    ciam.keys.oidc_signer(ciam.config.oidc_key_version)
}

/// `GET /.well-known/openid-configuration`.
pub fn discovery(ciam: &Ciam) -> Json {
    let iss = issuer(ciam);
    let mut scopes = vec![OPENID];
    scopes.extend(apps::SCOPES);
    json!({
        "issuer": iss,
        "authorization_endpoint": format!("{iss}/authorize"),
        "token_endpoint": format!("{iss}/token"),
        "userinfo_endpoint": format!("{iss}/userinfo"),
        "jwks_uri": format!("{iss}/jwks"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code"],
        "subject_types_supported": ["public"],
        "id_token_signing_alg_values_supported": ["ES256"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_basic", "client_secret_post"],
        "scopes_supported": scopes,
        "claims_supported": [
            "iss", "sub", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash",
            "nickname", "picture", "company", "phone_number", "phone_number_verified",
            "email", "email_verified",
        ],
        "ui_locales_supported": ["zh-CN", "en-US"],
        "authorization_response_iss_parameter_supported": true,
        "request_parameter_supported": false,
        "request_uri_parameter_supported": false,
        "claims_parameter_supported": false,
    })
}

/// `GET /jwks`: the signer's public keys, the signing one first. Derived keys: the current
/// version (N), the next one (N+1) and the one before (N-1): after a rotation to N+1, clients
/// that cached this document (5 minutes) already know the new key, and id_tokens signed just
/// before the rotation still verify. KMS: the current key and the configured previous ones.
pub fn jwks(ciam: &Ciam) -> Json {
    json!({ "keys": signer(ciam).jwks() })
}

/// The redirect that carries an error back to the client (RFC 6749 §4.1.2.1, RFC 9207 `iss`).
fn error_redirect(
    ciam: &Ciam,
    redirect_uri: &str,
    error: &str,
    description: Option<&str>,
    state: Option<&str>,
) -> String {
    let iss = issuer(ciam);
    let mut p = vec![("error", error)];
    if let Some(d) = description {
        p.push(("error_description", d));
    }
    if let Some(s) = state {
        p.push(("state", s));
    }
    p.push(("iss", iss.as_str()));
    with_params(redirect_uri, &p)
}

/// Where Cancel on the consent screen leads: the request's redirect URI with
/// `error=access_denied` and its `state`.
pub fn cancel_url(ciam: &Ciam, redirect_uri: &str, state: Option<&str>) -> String {
    error_redirect(ciam, redirect_uri, "access_denied", None, state)
}

fn bad_param(field: &'static str, zh: &'static str, en: &'static str) -> Error {
    Error::field(Reason::INVALID_PARAMETER, field, zh, en)
}

/// What `GET /authorize` answers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Authorize {
    /// The request is stored: the browser goes to `/{lang}/passport/authorize?oidcRequest=<id>`.
    Consent { request_id: String, lang: Lang },
    /// A refusal that goes back to the client's (verified) redirect URI.
    Redirect(String),
}

impl Authorize {
    /// The `Location` to send the browser to (a path of the SPA, or the client's URI).
    pub fn location(&self) -> String {
        match self {
            Authorize::Consent { request_id, lang } => {
                format!(
                    "/{}/passport/authorize?oidcRequest={request_id}",
                    lang.tag()
                )
            }
            Authorize::Redirect(url) => url.clone(),
        }
    }
}

/// `GET /authorize` with its query parameters as sent. A missing or unknown `client_id`, or a
/// `redirect_uri` that is not exactly one of the app's registered service URLs, is an error
/// answered here (INVALID_PARAMETER naming it), never a redirect. Every later refusal goes back
/// to the redirect URI with `error`, `error_description` and `state`. `accept` is the language
/// of Accept-Language, used unless `ui_locales` names zh-CN or en-US.
/// Round trips: 1 read (the app), 1 write (the request).
pub async fn authorize(
    ciam: &Ciam,
    params: &[(String, String)],
    accept: Lang,
) -> Result<Authorize> {
    let count = |name: &str| params.iter().filter(|(k, _)| k == name).count();
    let get = |name: &str| {
        params
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    let client_id = match (count("client_id"), get("client_id")) {
        (1, Some(id)) if !id.is_empty() && id.len() <= 64 => id,
        _ => {
            return Err(bad_param(
                "client_id",
                "缺少或重复的 client_id",
                "client_id is missing, repeated or malformed",
            ))
        }
    };
    let app = ciam.store.get(&app_key(client_id)).await?.ok_or_else(|| {
        bad_param(
            "client_id",
            "未知的应用",
            "client_id is not a registered app",
        )
    })?;
    let redirect_uri = match (count("redirect_uri"), get("redirect_uri")) {
        (1, Some(u)) if apps::registers(&app, u) => u,
        _ => {
            return Err(bad_param(
                "redirect_uri",
                "redirect_uri 未在应用中登记",
                "redirect_uri must be exactly one of the app's registered service URLs",
            ))
        }
    };
    // From here on the client is known and the URI is its own: refusals go back to it.
    let state = get("state").filter(|s| !s.is_empty() && s.len() <= MAX_ECHO);
    let refuse = |error: &str, description: &str| {
        Ok(Authorize::Redirect(error_redirect(
            ciam,
            redirect_uri,
            error,
            Some(description),
            state,
        )))
    };
    if let Some((k, _)) = params.iter().find(|(k, _)| count(k) > 1) {
        return refuse("invalid_request", &format!("{k} is repeated"));
    }
    if get("state").is_some_and(|s| s.len() > MAX_ECHO) {
        return refuse("invalid_request", "state is too long");
    }
    if get("request").is_some() {
        return refuse("request_not_supported", "request objects are not supported");
    }
    if get("request_uri").is_some() {
        return refuse("request_uri_not_supported", "request_uri is not supported");
    }
    match get("response_type") {
        None => return refuse("invalid_request", "response_type is missing"),
        Some("code") => {}
        Some(_) => {
            return refuse(
                "unsupported_response_type",
                "only response_type=code is supported",
            )
        }
    }
    if let Some(mode) = get("response_mode") {
        if mode != "query" {
            return refuse("invalid_request", "only response_mode=query is supported");
        }
    }
    let requested: Vec<&str> = get("scope")
        .unwrap_or("")
        .split_ascii_whitespace()
        .collect();
    if !requested.contains(&OPENID) {
        return refuse("invalid_request", "the scope must include openid");
    }
    match get("code_challenge_method") {
        Some("S256") => {}
        None => {
            return refuse(
                "invalid_request",
                "PKCE is required: code_challenge_method=S256",
            )
        }
        Some(_) => {
            return refuse(
                "invalid_request",
                "only code_challenge_method=S256 is supported",
            )
        }
    }
    let challenge = match get("code_challenge") {
        Some(c) if c.len() == 43 && c.bytes().all(is_b64url) => c,
        Some(_) => return refuse("invalid_request", "code_challenge is not a S256 challenge"),
        None => return refuse("invalid_request", "PKCE is required: code_challenge"),
    };
    let nonce = get("nonce").filter(|n| !n.is_empty());
    if nonce.is_some_and(|n| n.len() > MAX_ECHO) {
        return refuse("invalid_request", "nonce is too long");
    }
    // The session is the SPA's bearer token, which this request cannot see.
    if get("prompt").is_some_and(|p| p.split_ascii_whitespace().any(|x| x == "none")) {
        return refuse("login_required", "prompt=none is not supported");
    }
    let lang = get("ui_locales")
        .and_then(|l| l.split_ascii_whitespace().find_map(Lang::parse_tag))
        .unwrap_or(accept);
    // The app's scopes that were asked for, in the app's order.
    let scopes: Vec<String> = apps::scopes(&app)
        .into_iter()
        .filter(|s| requested.contains(&s.as_str()))
        .collect();
    let id = b64(&random::<32>(ciam.entropy.as_ref()));
    let now = ciam.now();
    let item = Item::new(request_key(&id))
        .with("appId", client_id)
        .with("redirectUri", redirect_uri)
        .with("scopes", Value::strings(&scopes))
        .with_opt("state", state)
        .with_opt("nonce", nonce)
        .with("codeChallenge", challenge)
        .with("createdAt", now)
        .expires(now + REQUEST_SECS);
    ciam.store.put(item, Some(Cond::NotExists)).await?;
    Ok(Authorize::Consent {
        request_id: id,
        lang,
    })
}

fn is_b64url(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_'
}

fn request_key(id: &str) -> Key {
    Key::new(format!("{REQUEST_PREFIX}{id}"), "OIDCREQ")
}

fn code_key(ciam: &Ciam, code: &str) -> Key {
    Key::new(
        format!(
            "OIDCCODE#{}",
            ciam.keys.keyed_hash(CODE_LABEL, code.as_bytes())
        ),
        "OIDCCODE",
    )
}

fn token_hash(ciam: &Ciam, token: &str) -> String {
    ciam.keys.keyed_hash(TOKEN_LABEL, token.as_bytes())
}

fn token_key_of(hash: &str) -> Key {
    Key::new(format!("OIDCTOKEN#{hash}"), "OIDCTOKEN")
}

fn token_key(ciam: &Ciam, token: &str) -> Key {
    token_key_of(&token_hash(ciam, token))
}

fn request_gone(cause: &str) -> Error {
    Error {
        cause: Some(cause.to_owned()),
        ..Error::new(Reason::NOT_FOUND)
    }
}

/// The stored request `id`, or NOT_FOUND (unknown, expired or used). Round trips: 1.
async fn load_request(ciam: &Ciam, id: &str) -> Result<Item> {
    if id.is_empty() || id.len() > 64 || !id.bytes().all(is_b64url) {
        return Err(request_gone("malformed request id"));
    }
    ciam.store
        .get(&request_key(id))
        .await?
        .ok_or_else(|| request_gone("unknown, expired or used request"))
}

/// The scopes a request asks for that its app still has (an app may have dropped one since).
fn asked(req: &Item, app: &Item) -> Vec<String> {
    let current = apps::scopes(app);
    req.strings("scopes")
        .into_iter()
        .filter(|s| current.contains(s))
        .collect()
}

/// The request's app, still registered with the request's redirect URI.
fn check_app(app: Option<&Item>, req: &Item) -> Result<()> {
    let app = app.ok_or(Reason::APPID_NOT_FOUND)?;
    let uri = req.s("redirectUri").unwrap_or_default();
    if !apps::registers(app, uri) {
        return Err(bad_param(
            "redirect_uri",
            "redirect_uri 已不再登记",
            "The redirect_uri is no longer registered for this app",
        ));
    }
    Ok(())
}

/// The stored request `id`, its app (still registering the request's redirect URI) and the
/// user's consent to that app, if any. Round trips: 2 (the request; the app and the consent
/// together).
async fn load_request_with_app(
    ciam: &Ciam,
    s: &Session,
    id: &str,
) -> Result<(Item, Item, Option<Item>)> {
    let req = load_request(ciam, id).await?;
    let app_id = req.s("appId").unwrap_or_default();
    let mut got = ciam
        .store
        .get_many(&[app_key(app_id), consent_key(&s.user.id, app_id)])
        .await?;
    check_app(got[0].as_ref(), &req)?;
    let consent = got.pop().flatten();
    let app = got.pop().flatten().ok_or(Reason::APPID_NOT_FOUND)?;
    Ok((req, app, consent))
}

/// `GET /requests/{id}`: what the consent screen shows for a stored request, in the shape of
/// `GET /auth/consent`; `scopes` are the app's scopes the request asked for, `granted` whether
/// the user already allowed all of those, `serviceUrl` is its redirect URI and `cancelUrl` goes
/// back to it with `error=access_denied`.
/// Round trips: 2 (the request; the app and the consent together).
pub async fn request_context(
    ciam: &Ciam,
    s: &Session,
    id: &str,
    lang: Lang,
) -> Result<consents::Context> {
    let (req, app, consent) = load_request_with_app(ciam, s, id).await?;
    let scopes = asked(&req, &app);
    let granted = consent
        .as_ref()
        .is_some_and(|c| consents::covers(c, &scopes));
    let uri = req.s("redirectUri").unwrap_or_default();
    let mut ctx = consents::Context::of(
        &app,
        lang,
        granted,
        uri,
        cancel_url(ciam, uri, req.s("state")),
    );
    ctx.scopes = scopes;
    Ok(ctx)
}

/// The browser's next stop after Allow.
#[derive(Debug, Serialize)]
pub struct Approved {
    pub redirect: String,
}

/// `POST /requests/{id}`: the user allows the request. The request is consumed (single use)
/// and, in the same transaction, the code is written (bound to the user, app, redirect URI,
/// scopes, nonce, PKCE challenge and the session's last proof of identity), the consent to the
/// request's scopes (those the screen showed) remembered, merged with what was allowed before,
/// and the app recorded among the user's recent apps. Answers the redirect URI with `code`,
/// `state` and `iss`. Round trips: 2 reads (the request; the app and the consent together),
/// 1 transaction.
pub async fn approve(ciam: &Ciam, s: &Session, id: &str) -> Result<Approved> {
    let (req, app, consent) = load_request_with_app(ciam, s, id).await?;
    let app_id = req.s("appId").unwrap_or_default();
    let scopes = asked(&req, &app);
    let code = b64(&random::<32>(ciam.entropy.as_ref()));
    let now = ciam.now();
    let uri = req.s("redirectUri").unwrap_or_default();
    let item = Item::new(code_key(ciam, &code))
        .with("userId", s.user.id.as_str())
        .with("appId", app_id)
        .with("redirectUri", uri)
        .with("scopes", Value::strings(&scopes))
        .with_opt("nonce", req.s("nonce"))
        .with("codeChallenge", req.s("codeChallenge").unwrap_or_default())
        .with("authTime", s.auth_at)
        .with("createdAt", now)
        .expires(now + CODE_SECS);
    let tx = vec![
        TxOp::Delete {
            key: req.key.clone(),
            cond: Some(Cond::Exists),
        },
        TxOp::Put {
            item,
            cond: Some(Cond::NotExists),
        },
        consents::grant_op(ciam, &s.user.id, app_id, &scopes, consent.as_ref()),
        tickets::recent_app_op(ciam, &s.user.id, &app),
    ];
    match ciam.store.transact(tx).await {
        Ok(()) => {}
        Err(e) if e.condition_failed_at(0) => return Err(request_gone("request used meanwhile")),
        other => other.or_reason(Reason::SERVICE_UNAVAILABLE)?,
    }
    let iss = issuer(ciam);
    let mut p = vec![("code", code.as_str())];
    if let Some(st) = req.s("state") {
        p.push(("state", st));
    }
    p.push(("iss", iss.as_str()));
    Ok(Approved {
        redirect: with_params(uri, &p),
    })
}

/// The form of `POST /token`, as sent.
#[derive(Clone, Debug, Default)]
pub struct TokenRequest {
    pub grant_type: Option<String>,
    pub code: Option<String>,
    pub redirect_uri: Option<String>,
    pub code_verifier: Option<String>,
    pub client_id: Option<String>,
    pub client_secret: Option<String>,
}

/// The token endpoint's answer.
#[derive(Debug, Serialize)]
pub struct Tokens {
    pub access_token: String,
    pub token_type: &'static str,
    pub expires_in: i64,
    pub id_token: String,
    pub scope: String,
}

fn invalid_grant(description: &str) -> OAuthError {
    OAuthError::new("invalid_grant", description)
}

/// Whether `verifier` (RFC 7636: 43 to 128 unreserved characters) hashes to `challenge`.
fn pkce_matches(verifier: &str, challenge: &str) -> bool {
    let well_formed = (43..=128).contains(&verifier.len())
        && verifier
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_' | b'~'));
    let computed = b64(&Sha256::digest(verifier.as_bytes()));
    well_formed && bool::from(computed.as_bytes().ct_eq(challenge.as_bytes()))
}

/// The condition of a code not redeemed yet (live, and not a tombstone).
fn unused() -> Cond {
    Cond::Exists.and(Cond::attr_not_exists("usedAt"))
}

/// A redemption of a code already redeemed: deletes the access token the first redemption
/// issued (RFC 6749 §4.1.2), named by the code's tombstone (`tombstone`, or read again when
/// None). Best effort: a failure is logged. Round trips: 0 or 1 read, 1 delete.
async fn revoke_issued(ciam: &Ciam, ckey: &Key, tombstone: Option<&Item>) {
    let read;
    let tomb = match tombstone {
        Some(t) => Some(t),
        None => {
            read = ciam.store.get(ckey).await;
            match &read {
                Ok(t) => t.as_ref(),
                Err(cause) => {
                    tracing::warn!(cause = %cause, "oidc: could not read a replayed code");
                    None
                }
            }
        }
    };
    let Some(hash) = tomb.and_then(|t| t.s("tokenHash")) else {
        return;
    };
    tracing::warn!("oidc: authorization code redeemed twice; its access token is revoked");
    if let Err(cause) = ciam.store.delete(&token_key_of(hash), None).await {
        tracing::warn!(cause = %cause, "oidc: could not revoke the token of a replayed code");
    }
}

/// Burns a code after a refused redemption (a conditional delete). If it was redeemed
/// meanwhile, this attempt is a replay: the token issued for it is revoked.
async fn burn(ciam: &Ciam, ckey: &Key) -> std::result::Result<(), OAuthError> {
    if ciam
        .store
        .delete(ckey, Some(unused()))
        .await
        .won()?
        .is_none()
    {
        revoke_issued(ciam, ckey, None).await;
    }
    Ok(())
}

/// `POST /token` (grant_type=authorization_code). The client authenticates by HTTP Basic
/// (`basic`, already decoded) or by `client_id` and `client_secret` in the form, not both; wrong
/// credentials are `invalid_client` and leave the code alone. Otherwise this one attempt burns
/// the code: another client's code, another redirect URI or a wrong verifier is `invalid_grant`
/// and deletes it; a good one writes the access token, then turns the code into a tombstone
/// naming it (a conditional update: of concurrent redemptions exactly one wins). A code already
/// redeemed is `invalid_grant` and revokes the access token of its first redemption.
/// Round trips: 1 read (app and code together), 1 read (the user), 1 write (the access token)
/// alongside the id_token's signature (KMS Sign in AWS), 1 conditional update (the code).
pub async fn token(
    ciam: &Ciam,
    form: &TokenRequest,
    basic: Option<(String, String)>,
) -> std::result::Result<Tokens, OAuthError> {
    let (client_id, secret) = match (basic, &form.client_secret) {
        (Some(_), Some(_)) => {
            return Err(OAuthError::new(
                "invalid_request",
                "use one client authentication method",
            ))
        }
        (Some((id, secret)), None) => {
            if form.client_id.as_ref().is_some_and(|f| *f != id) {
                return Err(OAuthError::new(
                    "invalid_request",
                    "client_id differs from the authenticated client",
                ));
            }
            (id, secret)
        }
        (None, Some(secret)) => match &form.client_id {
            Some(id) => (id.clone(), secret.clone()),
            None => return Err(OAuthError::new("invalid_client", "client_id is missing")),
        },
        (None, None) => {
            return Err(OAuthError::new(
                "invalid_client",
                "client authentication is required",
            ))
        }
    };
    match form.grant_type.as_deref() {
        Some("authorization_code") => {}
        None => return Err(OAuthError::new("invalid_request", "grant_type is missing")),
        Some(_) => {
            return Err(OAuthError::new(
                "unsupported_grant_type",
                "only authorization_code is supported",
            ))
        }
    }
    let bad_client = || OAuthError::new("invalid_client", "client authentication failed");
    if client_id.is_empty() || client_id.len() > 64 {
        return Err(bad_client());
    }
    let code = form
        .code
        .as_deref()
        .filter(|c| !c.is_empty() && c.len() <= 128)
        .ok_or_else(|| OAuthError::new("invalid_request", "code is missing"))?;
    let ckey = code_key(ciam, code);
    let got = ciam
        .store
        .get_many(&[app_key(&client_id), ckey.clone()])
        .await?;
    let Some(app) = &got[0] else {
        return Err(bad_client());
    };
    if !apps::secret_matches(ciam, app, &secret).await {
        return Err(bad_client());
    }
    let Some(c) = &got[1] else {
        return Err(invalid_grant("unknown, expired or used code"));
    };
    if c.attrs.contains_key("usedAt") {
        revoke_issued(ciam, &ckey, Some(c)).await;
        return Err(invalid_grant("code already used"));
    }
    let verified = form
        .code_verifier
        .as_deref()
        .is_some_and(|v| pkce_matches(v, c.s("codeChallenge").unwrap_or_default()));
    let refusal = if c.s("appId") != Some(client_id.as_str()) {
        Some("code of another client")
    } else if form.redirect_uri.as_deref() != c.s("redirectUri") {
        Some("redirect_uri differs from the authorization request")
    } else if !verified {
        Some("code_verifier does not match the code_challenge")
    } else {
        None
    };
    if let Some(why) = refusal {
        burn(ciam, &ckey).await?;
        return Err(invalid_grant(why));
    }
    let user_id = c.s("userId").unwrap_or_default();
    let Some(user) = active_user(ciam, user_id).await? else {
        burn(ciam, &ckey).await?;
        return Err(invalid_grant("the account is gone"));
    };
    let scopes = c.strings("scopes");
    let access_token = b64(&random::<32>(ciam.entropy.as_ref()));
    let hash = token_hash(ciam, &access_token);
    let tkey = token_key_of(&hash);
    let now = ciam.now();
    let mut payload = Map::new();
    payload.insert("iss".into(), issuer(ciam).into());
    payload.insert("sub".into(), user.id.clone().into());
    payload.insert("aud".into(), client_id.clone().into());
    payload.insert("azp".into(), client_id.clone().into());
    payload.insert("iat".into(), now.into());
    payload.insert("exp".into(), (now + TOKEN_SECS).into());
    payload.insert("auth_time".into(), c.n("authTime").unwrap_or(now).into());
    if let Some(n) = c.s("nonce") {
        payload.insert("nonce".into(), n.into());
    }
    let digest = Sha256::digest(access_token.as_bytes());
    payload.insert("at_hash".into(), b64(&digest[..16]).into());
    payload.extend(claims(ciam, &user, &scopes));
    let item = Item::new(tkey.clone())
        .with("userId", user.id.as_str())
        .with("appId", client_id.as_str())
        .with("scopes", Value::strings(&scopes))
        .with("gen", user.sess_gen)
        .with("createdAt", now)
        .expires(now + TOKEN_SECS);
    // The signature (a KMS call in AWS) runs beside the token's write, and both come before the
    // tombstone: a signer that fails leaves the code redeemable and no token behind.
    let (signer, payload) = (signer(ciam), Json::Object(payload));
    let (id_token, put) = tokio::join!(
        sign_jwt(signer.as_ref(), &payload),
        ciam.store.put(item, Some(Cond::NotExists))
    );
    put?;
    let id_token = match id_token {
        Ok(t) => t,
        Err(cause) => {
            tracing::error!(cause = %cause, "oidc: the id_token could not be signed");
            if let Err(cause) = ciam.store.delete(&tkey, None).await {
                tracing::warn!(cause = %cause, "oidc: could not delete an access token never given");
            }
            return Err(OAuthError::new("server_error", "internal error"));
        }
    };
    // The token exists before the tombstone names it: whoever sees the tombstone can revoke it.
    let tomb = vec![
        Update::Set("usedAt".into(), now.into()),
        Update::Set("tokenHash".into(), hash.as_str().into()),
        Update::Expires(Some(now + TOKEN_SECS)),
    ];
    if let Err(e) = ciam.store.update(&ckey, tomb, Some(unused())).await {
        if let Err(cause) = ciam.store.delete(&tkey, None).await {
            tracing::warn!(cause = %cause, "oidc: could not delete an access token never given");
        }
        return match e {
            StoreError::ConditionFailed => {
                revoke_issued(ciam, &ckey, None).await;
                Err(invalid_grant("code already used"))
            }
            e => Err(e.into()),
        };
    }
    let mut scope = vec![OPENID.to_owned()];
    scope.extend(scopes);
    Ok(Tokens {
        access_token,
        token_type: "Bearer",
        expires_in: TOKEN_SECS,
        id_token,
        scope: scope.join(" "),
    })
}

/// The user's claims under their OpenID Connect names, limited to `scopes` (the ticket's claim
/// rules, `tickets::claims`): nickname, picture (absolute), company, phone_number (E.164) and
/// email, the last two verified (Ciam binds them only by code).
fn claims(ciam: &Ciam, user: &User, scopes: &[String]) -> Map<String, Json> {
    let c = tickets::claims(user, scopes);
    let mut m = Map::new();
    if let Some(n) = c.nickname {
        m.insert("nickname".into(), n.into());
    }
    if let Some(a) = c.avatar {
        let abs = if a.starts_with('/') {
            format!("{}{a}", ciam.config.public_url.trim_end_matches('/'))
        } else {
            a
        };
        m.insert("picture".into(), abs.into());
    }
    if let Some(co) = c.company {
        m.insert("company".into(), co.into());
    }
    if let Some(p) = c.phone {
        let e164 = if p.starts_with('+') {
            p
        } else {
            format!("+86{p}")
        };
        m.insert("phone_number".into(), e164.into());
        m.insert("phone_number_verified".into(), true.into());
    }
    if let Some(e) = c.email {
        m.insert("email".into(), e.into());
        m.insert("email_verified".into(), true.into());
    }
    m
}

/// `GET|POST /userinfo`: `sub` and the claims the token's scopes allow. An unknown or expired
/// token, one of an account deactivated or signed out everywhere since, or one whose consent the
/// user revoked (`DELETE /auth/consents/{appId}`) is `invalid_token`.
/// Round trips: 2 (the token; the user and the consent together).
pub async fn userinfo(ciam: &Ciam, token: Option<&str>) -> std::result::Result<Json, OAuthError> {
    let bad = |d: &str| OAuthError::new("invalid_token", d);
    let token = token
        .filter(|t| !t.is_empty() && t.len() <= 128)
        .ok_or_else(|| bad("an access token is required"))?;
    let item = ciam
        .store
        .get(&token_key(ciam, token))
        .await?
        .ok_or_else(|| bad("unknown or expired access token"))?;
    let (user_id, app_id) = (
        item.s("userId").unwrap_or_default(),
        item.s("appId").unwrap_or_default(),
    );
    let scopes = item.strings("scopes");
    let got = ciam
        .store
        .get_many(&[profile_key(user_id), consent_key(user_id, app_id)])
        .await?;
    let user = got[0]
        .as_ref()
        .and_then(User::from_item)
        .filter(|u| !u.deactivated && item.n("gen") == Some(u.sess_gen))
        .ok_or_else(|| bad("the access token was revoked"))?;
    // The consent must still cover the token, and date from before it (a revocation followed
    // by a new Allow does not revive older tokens).
    let created = item.n("createdAt").unwrap_or(0);
    if !got[1]
        .as_ref()
        .is_some_and(|c| consents::covers(c, &scopes) && c.n("since").unwrap_or(0) <= created)
    {
        return Err(bad("the user revoked the consent"));
    }
    let mut m = Map::new();
    m.insert("sub".into(), user.id.clone().into());
    m.extend(claims(ciam, &user, &scopes));
    Ok(Json::Object(m))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pkce_s256_matches_the_rfc_7636_example() {
        let verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk";
        let challenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM";
        assert!(pkce_matches(verifier, challenge));
        assert!(!pkce_matches(challenge, challenge));
        assert!(!pkce_matches("short", challenge));
    }

    #[test]
    fn params_are_appended_form_encoded() {
        assert_eq!(
            with_params("https://a.example/cb", &[("code", "x"), ("state", "a b&c")]),
            "https://a.example/cb?code=x&state=a+b%26c"
        );
        assert_eq!(
            with_params("https://a.example/cb?x=1", &[("error", "access_denied")]),
            "https://a.example/cb?x=1&error=access_denied"
        );
    }
}
