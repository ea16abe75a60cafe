//! Ciam as an OpenID Connect relying party of the company's identity provider (staff sign-in):
//! discovery, the authorization request (code flow, PKCE S256, nonce), the token exchange,
//! userinfo, as the `ciam_core::federation::Provider` of staff. The id_token's checks and the
//! staff rules are `ciam_core::staff`'s.

use super::client;
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
struct IdpTokens {
    id_token: String,
    access_token: Option<String>,
}

/// Discovery documents are kept this long per issuer (per process, i.e. per Lambda instance).
const CACHE_FOR: Duration = Duration::from_secs(3600);

fn cache() -> &'static Mutex<HashMap<String, (Metadata, Instant)>> {
    static CACHE: OnceLock<Mutex<HashMap<String, (Metadata, Instant)>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The identity provider could not be reached or answered nonsense.
fn unavailable(cause: impl std::fmt::Display) -> FedError {
    FedError::Unavailable(format!("staff identity provider: {cause}"))
}

/// RFC 6749 §2.3.1: the client id and secret are form-encoded before they go into Basic.
fn form_encoded(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The configured company identity provider, or Misconfigured.
fn idp(ciam: &Ciam) -> Result<&StaffIdp, FedError> {
    ciam.config
        .staff_idp
        .as_ref()
        .ok_or_else(|| FedError::Misconfigured("staff sign-in is not configured".into()))
}

/// The company's OpenID Connect identity provider over HTTPS.
pub struct Oidc;

impl Oidc {
    /// `{issuer}/.well-known/openid-configuration`, whose `issuer` must be the configured one
    /// (OpenID Connect Discovery §4.3) and whose endpoints must be https (http only on loopback):
    /// the id_token's signature is not checked because it comes from the token endpoint over TLS.
    async fn discover(&self, idp: &StaffIdp) -> Result<Metadata, FedError> {
        if let Ok(c) = cache().lock() {
            if let Some((m, at)) = c.get(&idp.issuer) {
                if at.elapsed() < CACHE_FOR {
                    return Ok(m.clone());
                }
            }
        }
        let url = format!(
            "{}/.well-known/openid-configuration",
            idp.issuer.trim_end_matches('/')
        );
        let res = client().get(&url).send().await.map_err(unavailable)?;
        if !res.status().is_success() {
            return Err(unavailable(format!("discovery answered {}", res.status())));
        }
        let meta: Metadata = res.json().await.map_err(unavailable)?;
        if meta.issuer != idp.issuer {
            return Err(unavailable("the discovery document names another issuer"));
        }
        for (name, endpoint) in [
            ("authorization_endpoint", Some(&meta.authorization_endpoint)),
            ("token_endpoint", Some(&meta.token_endpoint)),
            ("userinfo_endpoint", meta.userinfo_endpoint.as_ref()),
        ] {
            if endpoint.is_some_and(|e| !staff::secure_url(e)) {
                return Err(unavailable(format!(
                    "the discovery document's {name} is not an https URL"
                )));
            }
        }
        if let Ok(mut c) = cache().lock() {
            c.insert(idp.issuer.clone(), (meta.clone(), Instant::now()));
        }
        Ok(meta)
    }

    /// The token request (client_secret_basic, with the PKCE verifier). A refusal by the provider
    /// (an invalid or replayed code) is CodeRefused; anything else Unavailable.
    async fn exchange(
        &self,
        meta: &Metadata,
        idp: &StaffIdp,
        redirect_uri: &str,
        code: &str,
        verifier: &str,
    ) -> Result<IdpTokens, FedError> {
        let res = client()
            .post(&meta.token_endpoint)
            .basic_auth(
                form_encoded(&idp.client_id),
                Some(form_encoded(&idp.client_secret)),
            )
            .header("accept", "application/json")
            .form(&[
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirect_uri),
                ("code_verifier", verifier),
            ])
            .send()
            .await
            .map_err(unavailable)?;
        let status = res.status();
        if status.is_client_error() {
            let body = res.text().await.unwrap_or_default();
            return Err(FedError::CodeRefused(format!(
                "token endpoint refused ({status}): {}",
                body.chars().take(200).collect::<String>()
            )));
        }
        if !status.is_success() {
            return Err(unavailable(format!("token endpoint answered {status}")));
        }
        res.json().await.map_err(unavailable)
    }

    /// The userinfo claims, for a provider that leaves the mail out of the id_token. Their `sub`
    /// must be the id_token's (OpenID Connect Core §5.3.2); none without a userinfo endpoint.
    async fn userinfo(
        &self,
        meta: &Metadata,
        access_token: &str,
        sub: &str,
    ) -> Result<StaffClaims, FedError> {
        let Some(endpoint) = &meta.userinfo_endpoint else {
            return Ok(StaffClaims::default());
        };
        let res = client()
            .get(endpoint)
            .bearer_auth(access_token)
            .header("accept", "application/json")
            .send()
            .await
            .map_err(unavailable)?;
        if !res.status().is_success() {
            return Err(unavailable(format!("userinfo answered {}", res.status())));
        }
        let v: serde_json::Value = res.json().await.map_err(unavailable)?;
        let claims = StaffClaims::from_json(&v);
        if claims.sub != sub {
            return Err(FedError::CodeRefused(
                "userinfo is about another subject".into(),
            ));
        }
        Ok(claims)
    }
}

#[async_trait::async_trait]
impl Provider for Oidc {
    fn facts(&self) -> &'static Facts {
        &STAFF
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        ciam.config.staff_idp.is_some()
    }

    async fn ready(&self, ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        self.discover(idp(ciam)?).await.map(|_| ())
    }

    /// The authorization request (authorization code flow, PKCE S256).
    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        let idp = idp(ciam)?;
        let meta = self.discover(idp).await?;
        let (Some(nonce), Some(challenge)) = (&started.nonce, &started.code_challenge) else {
            return Err(FedError::Misconfigured("the state has no nonce".into()));
        };
        let mut url = url::Url::parse(&meta.authorization_endpoint).map_err(unavailable)?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &idp.client_id)
            .append_pair("redirect_uri", &redirect_uri(ciam, self.facts()))
            .append_pair("scope", "openid email profile")
            .append_pair("state", &started.state)
            .append_pair("nonce", nonce)
            .append_pair("code_challenge", challenge)
            .append_pair("code_challenge_method", "S256");
        Ok(url.into())
    }

    /// Exchanges the code, checks the id_token (and reads userinfo when it lacks a verified
    /// mail): the mail and its verification come as a pair, from the id_token or from userinfo.
    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let idp = idp(ciam)?;
        if let Some(err) = &cb.error {
            return Err(FedError::CodeRefused(format!(
                "the identity provider answered {err}"
            )));
        }
        if cb.iss.as_deref().is_some_and(|iss| iss != idp.issuer) {
            return Err(FedError::CodeRefused(
                "the answer names another issuer".into(),
            ));
        }
        let code = cb
            .code
            .as_deref()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| FedError::CodeRefused("no code".into()))?;
        let nonce = pending.nonce.as_deref().unwrap_or("");
        let verifier = pending.verifier.as_deref().unwrap_or("");
        let meta = self.discover(idp).await?;
        let tokens = self
            .exchange(
                &meta,
                idp,
                &redirect_uri(ciam, self.facts()),
                code,
                verifier,
            )
            .await?;
        let mut claims =
            staff::check_id_token(ciam, idp, &tokens.id_token, nonce).map_err(|e| {
                let cause = e.cause.unwrap_or_default();
                if e.reason == Reason::AUTHORIZATION_FAILED {
                    FedError::CodeRefused(cause)
                } else {
                    FedError::Unavailable(cause)
                }
            })?;
        if claims.email.is_none() || claims.email_verified != Some(true) {
            if let Some(at) = &tokens.access_token {
                let more = self.userinfo(&meta, at, &claims.sub).await?;
                if more.email.is_some() {
                    claims.email = more.email;
                    claims.email_verified = more.email_verified;
                }
                claims.name = claims.name.or(more.name);
            }
        }
        let mfa = claims.did_mfa(&ciam.config.staff_mfa_acr);
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
}
