//! Ciam as an OpenID Connect relying party: discovery, the authorization request (code flow,
//! PKCE S256, nonce), the token exchange, the id_token's checks and userinfo, each taking the
//! relying party's settings as a value ([`Rp`]): staff's from this process's configuration
//! ([`Oidc`], the `ciam_core::federation::Provider` of staff), an organization's connection's
//! from its item (`super::org`). The id_token's checks and the staff rules are
//! `ciam_core::staff`'s.

use super::client;
use ciam_core::federation::ProviderId;
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, Provider, Started, Surface,
    Vouches, STAFF,
};
use ciam_core::staff::{self, StaffClaims, StaffIdp};
use ciam_core::{Ciam, Reason};
use serde::Deserialize;
use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

/// The parts of the provider's discovery document Ciam uses.
#[derive(Clone, Debug, Deserialize)]
pub struct Metadata {
    pub issuer: String,
    pub authorization_endpoint: String,
    pub token_endpoint: String,
    pub userinfo_endpoint: Option<String>,
}

/// The token endpoint's answer.
#[derive(Debug, Deserialize)]
pub(crate) struct IdpTokens {
    id_token: String,
    access_token: Option<String>,
}

/// Discovery documents are kept this long per issuer (per process, i.e. per Lambda instance).
const CACHE_FOR: Duration = Duration::from_secs(3600);

fn cache() -> &'static Mutex<HashMap<String, (Metadata, Instant)>> {
    static CACHE: OnceLock<Mutex<HashMap<String, (Metadata, Instant)>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// One relying party's settings, whoever holds them.
#[derive(Clone)]
pub struct Rp {
    /// The issuer URL; discovery is at `{issuer}/.well-known/openid-configuration`.
    pub issuer: String,
    pub client_id: String,
    /// The client secret: only the callback has it (the start needs none).
    pub client_secret: Option<String>,
    /// The scopes asked for (`openid email profile`).
    pub scopes: String,
    /// The `acr` values that mean a second factor (besides `amr` saying so).
    pub mfa_acr: Vec<String>,
    /// Who the errors name: `staff identity provider`, `connection conn_…`.
    pub label: String,
    /// Where the provider sends the browser back (registered there).
    pub redirect_uri: String,
}

/// Never prints the secret.
impl std::fmt::Debug for Rp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Rp")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("label", &self.label)
            .finish_non_exhaustive()
    }
}

impl Rp {
    /// The identity provider could not be reached or answered nonsense at `step`.
    fn unavailable(&self, step: &str, cause: impl std::fmt::Display) -> FedError {
        FedError::Unavailable(format!("{}: {step}: {cause}", self.label))
    }

    /// The settings `check_id_token` takes.
    fn idp(&self) -> StaffIdp {
        StaffIdp {
            issuer: self.issuer.clone(),
            client_id: self.client_id.clone(),
            client_secret: String::new(),
        }
    }
}

/// Drops the discovery document kept for `issuer` (a connection changed or tested).
pub fn forget(issuer: &str) {
    if let Ok(mut c) = cache().lock() {
        c.remove(issuer);
    }
}

/// RFC 6749 §2.3.1: the client id and secret are form-encoded before they go into Basic.
fn form_encoded(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// `{issuer}/.well-known/openid-configuration`, whose `issuer` must be the configured one
/// (OpenID Connect Discovery §4.3) and whose endpoints must be https (http only on loopback):
/// the id_token's signature is not checked because it comes from the token endpoint over TLS.
/// Kept an hour per issuer.
pub async fn discover(rp: &Rp) -> Result<Metadata, FedError> {
    if let Ok(c) = cache().lock() {
        if let Some((m, at)) = c.get(&rp.issuer) {
            if at.elapsed() < CACHE_FOR {
                return Ok(m.clone());
            }
        }
    }
    let step = "discovery";
    let url = format!(
        "{}/.well-known/openid-configuration",
        rp.issuer.trim_end_matches('/')
    );
    let res = client()
        .get(&url)
        .send()
        .await
        .map_err(|e| rp.unavailable(step, e))?;
    if !res.status().is_success() {
        return Err(rp.unavailable(step, format!("answered {}", res.status())));
    }
    let meta: Metadata = res.json().await.map_err(|e| rp.unavailable(step, e))?;
    if meta.issuer != rp.issuer {
        return Err(rp.unavailable(step, "the document names another issuer"));
    }
    for (name, endpoint) in [
        ("authorization_endpoint", Some(&meta.authorization_endpoint)),
        ("token_endpoint", Some(&meta.token_endpoint)),
        ("userinfo_endpoint", meta.userinfo_endpoint.as_ref()),
    ] {
        if endpoint.is_some_and(|e| !staff::secure_url(e)) {
            return Err(rp.unavailable(step, format!("the document's {name} is not an https URL")));
        }
    }
    if let Ok(mut c) = cache().lock() {
        c.insert(rp.issuer.clone(), (meta.clone(), Instant::now()));
    }
    Ok(meta)
}

/// The authorization request (authorization code flow, PKCE S256, nonce).
pub async fn authorization_url(rp: &Rp, started: &Started) -> Result<String, FedError> {
    let meta = discover(rp).await?;
    let (Some(nonce), Some(challenge)) = (&started.nonce, &started.code_challenge) else {
        return Err(FedError::Misconfigured("the state has no nonce".into()));
    };
    let mut url = url::Url::parse(&meta.authorization_endpoint)
        .map_err(|e| rp.unavailable("discovery", e))?;
    url.query_pairs_mut()
        .append_pair("response_type", "code")
        .append_pair("client_id", &rp.client_id)
        .append_pair("redirect_uri", &rp.redirect_uri)
        .append_pair("scope", &rp.scopes)
        .append_pair("state", &started.state)
        .append_pair("nonce", nonce)
        .append_pair("code_challenge", challenge)
        .append_pair("code_challenge_method", "S256");
    Ok(url.into())
}

/// The token request (client_secret_basic, with the PKCE verifier). A refusal by the provider
/// (an invalid or replayed code) is CodeRefused; anything else Unavailable.
async fn exchange(
    rp: &Rp,
    meta: &Metadata,
    code: &str,
    verifier: &str,
) -> Result<IdpTokens, FedError> {
    let step = "token exchange";
    let secret = rp
        .client_secret
        .as_deref()
        .ok_or_else(|| FedError::Misconfigured(format!("{}: no client secret", rp.label)))?;
    let res = client()
        .post(&meta.token_endpoint)
        .basic_auth(form_encoded(&rp.client_id), Some(form_encoded(secret)))
        .header("accept", "application/json")
        .form(&[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", rp.redirect_uri.as_str()),
            ("code_verifier", verifier),
        ])
        .send()
        .await
        .map_err(|e| rp.unavailable(step, e))?;
    let status = res.status();
    if status.is_client_error() {
        let body = res.text().await.unwrap_or_default();
        return Err(FedError::CodeRefused(format!(
            "{step}: the token endpoint refused ({status}): {}",
            body.chars().take(200).collect::<String>()
        )));
    }
    if !status.is_success() {
        return Err(rp.unavailable(step, format!("the token endpoint answered {status}")));
    }
    res.json().await.map_err(|e| rp.unavailable(step, e))
}

/// The userinfo claims, for a provider that leaves the mail out of the id_token. Their `sub`
/// must be the id_token's (OpenID Connect Core §5.3.2); none without a userinfo endpoint.
async fn userinfo(
    rp: &Rp,
    meta: &Metadata,
    access_token: &str,
    sub: &str,
) -> Result<StaffClaims, FedError> {
    let step = "userinfo";
    let Some(endpoint) = &meta.userinfo_endpoint else {
        return Ok(StaffClaims::default());
    };
    let res = client()
        .get(endpoint)
        .bearer_auth(access_token)
        .header("accept", "application/json")
        .send()
        .await
        .map_err(|e| rp.unavailable(step, e))?;
    if !res.status().is_success() {
        return Err(rp.unavailable(step, format!("answered {}", res.status())));
    }
    let v: serde_json::Value = res.json().await.map_err(|e| rp.unavailable(step, e))?;
    let claims = StaffClaims::from_json(&v);
    if claims.sub != sub {
        return Err(FedError::CodeRefused(format!(
            "{step}: about another subject"
        )));
    }
    Ok(claims)
}

/// The callback's answer read into an identity: the provider's error, the issuer (RFC 9207),
/// the code exchanged, the id_token checked (and userinfo read when it lacks a verified mail):
/// the mail and its verification come as a pair, from the id_token or from userinfo.
pub async fn identify(
    ciam: &Ciam,
    rp: &Rp,
    cb: &Callback,
    pending: &Pending,
) -> Result<ExternalIdentity, FedError> {
    if let Some(err) = &cb.error {
        return Err(FedError::CodeRefused(format!(
            "authorization: the identity provider answered {err}"
        )));
    }
    if cb.iss.as_deref().is_some_and(|iss| iss != rp.issuer) {
        return Err(FedError::CodeRefused(
            "authorization: the answer names another issuer".into(),
        ));
    }
    let code = cb
        .code
        .as_deref()
        .filter(|c| !c.is_empty())
        .ok_or_else(|| FedError::CodeRefused("authorization: no code".into()))?;
    let nonce = pending.nonce.as_deref().unwrap_or("");
    let verifier = pending.verifier.as_deref().unwrap_or("");
    let meta = discover(rp).await?;
    let tokens = exchange(rp, &meta, code, verifier).await?;
    let mut claims =
        staff::check_id_token(ciam, &rp.idp(), &tokens.id_token, nonce).map_err(|e| {
            let cause = format!("ID token check: {}", e.cause.unwrap_or_default());
            if e.reason == Reason::AUTHORIZATION_FAILED {
                FedError::CodeRefused(cause)
            } else {
                FedError::Unavailable(cause)
            }
        })?;
    if claims.email.is_none() || claims.email_verified != Some(true) {
        if let Some(at) = &tokens.access_token {
            let more = userinfo(rp, &meta, at, &claims.sub).await?;
            if more.email.is_some() {
                claims.email = more.email;
                claims.email_verified = more.email_verified;
            }
            claims.name = claims.name.or(more.name);
        }
    }
    let mfa = claims.did_mfa(&rp.mfa_acr);
    Ok(ExternalIdentity {
        vouches: Vouches {
            mail: claims
                .email
                .map(|m| (m, claims.email_verified == Some(true))),
        },
        subject: claims.sub,
        app_subject: None,
        name: claims.name,
        mfa,
    })
}

/// Staff's relying party, from this process's configuration, or Misconfigured.
fn staff_rp(ciam: &Ciam) -> Result<Rp, FedError> {
    let idp = ciam
        .config
        .staff_idp
        .as_ref()
        .ok_or_else(|| FedError::Misconfigured("staff sign-in is not configured".into()))?;
    Ok(Rp {
        issuer: idp.issuer.clone(),
        client_id: idp.client_id.clone(),
        client_secret: Some(idp.client_secret.clone()),
        scopes: "openid email profile".into(),
        mfa_acr: ciam.config.staff_mfa_acr.clone(),
        label: "staff identity provider".into(),
        redirect_uri: redirect_uri(ciam, ProviderId::Staff.facts()),
    })
}

/// The company's OpenID Connect identity provider of staff sign-in, configured in this process.
pub struct Oidc;

#[async_trait::async_trait]
impl Provider for Oidc {
    fn facts(&self) -> &'static Facts {
        &STAFF
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        ciam.config.staff_idp.is_some()
    }

    async fn ready(&self, ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        discover(&staff_rp(ciam)?).await.map(|_| ())
    }

    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        authorization_url(&staff_rp(ciam)?, started).await
    }

    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        identify(ciam, &staff_rp(ciam)?, cb, pending).await
    }
}
