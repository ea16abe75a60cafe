//! The HTTP side of staff sign-in: Ciam as an OpenID Connect relying party of the company's
//! identity provider (discovery, the authorization request, the token exchange, userinfo), as
//! [`Federation`], the `ciam_core::staff::IdentityProvider` the routes use. The flow and its
//! rules (state, id_token claims, linking) are `ciam_core::staff`'s.

use ciam_core::staff::{self, IdentityProvider, IdpTokens, StaffClaims, StaffIdp, Started};
use ciam_core::{Error, Reason};
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

/// Discovery documents are kept this long per issuer (per process, i.e. per Lambda instance).
const CACHE_FOR: Duration = Duration::from_secs(3600);

/// HTTPS to the identity provider uses the process's rustls crypto provider: aws-lc-rs, the
/// one the AWS SDKs use (no second crypto library in the binary). Installed here when nothing
/// else installed one first.
pub(crate) fn tls_provider() {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

fn client() -> &'static reqwest::Client {
    static CLIENT: OnceLock<reqwest::Client> = OnceLock::new();
    CLIENT.get_or_init(|| {
        tls_provider();
        reqwest::Client::builder()
            .connect_timeout(Duration::from_secs(5))
            .timeout(Duration::from_secs(10))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .unwrap_or_default()
    })
}

/// A PUT of `body` to `url` with the same HTTPS client (the key distributor's answer to
/// CloudFormation, a presigned S3 URL): the status, or why there is none.
pub async fn https_put(url: &str, body: String) -> Result<u16, String> {
    client()
        .put(url)
        .header("content-type", "")
        .body(body)
        .send()
        .await
        .map(|r| r.status().as_u16())
        .map_err(|e| format!("PUT failed: {e}"))
}

fn cache() -> &'static Mutex<HashMap<String, (Metadata, Instant)>> {
    static CACHE: OnceLock<Mutex<HashMap<String, (Metadata, Instant)>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// The identity provider could not be reached or answered nonsense.
fn unavailable(cause: impl std::fmt::Display) -> Error {
    Error {
        cause: Some(format!("staff identity provider: {cause}")),
        ..Error::new(Reason::SERVICE_UNAVAILABLE)
    }
}

/// RFC 6749 §2.3.1: the client id and secret are form-encoded before they go into Basic.
fn form_encoded(s: &str) -> String {
    url::form_urlencoded::byte_serialize(s.as_bytes()).collect()
}

/// The company's identity provider over HTTPS.
pub struct Federation;

#[async_trait::async_trait]
impl IdentityProvider for Federation {
    type Metadata = Metadata;

    /// `{issuer}/.well-known/openid-configuration`, whose `issuer` must be the configured one
    /// (OpenID Connect Discovery §4.3) and whose endpoints must be https (http only on loopback):
    /// the id_token's signature is not checked because it comes from the token endpoint over TLS.
    async fn discover(&self, idp: &StaffIdp) -> Result<Metadata, Error> {
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
    /// The authorization request (authorization code flow, PKCE S256).
    fn authorization_url(
        &self,
        meta: &Metadata,
        idp: &StaffIdp,
        redirect_uri: &str,
        started: &Started,
    ) -> Result<String, Error> {
        let mut url = url::Url::parse(&meta.authorization_endpoint).map_err(unavailable)?;
        url.query_pairs_mut()
            .append_pair("response_type", "code")
            .append_pair("client_id", &idp.client_id)
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("scope", "openid email profile")
            .append_pair("state", &started.state)
            .append_pair("nonce", &started.nonce)
            .append_pair("code_challenge", &started.code_challenge)
            .append_pair("code_challenge_method", "S256");
        Ok(url.into())
    }
    /// The token request (client_secret_basic, with the PKCE verifier). A refusal by the provider
    /// (an invalid or replayed code) is AUTHORIZATION_FAILED; anything else SERVICE_UNAVAILABLE.
    async fn exchange(
        &self,
        meta: &Metadata,
        idp: &StaffIdp,
        redirect_uri: &str,
        code: &str,
        verifier: &str,
    ) -> Result<IdpTokens, Error> {
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
            return Err(Error {
                cause: Some(format!(
                    "token endpoint refused ({status}): {}",
                    body.chars().take(200).collect::<String>()
                )),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            });
        }
        if !status.is_success() {
            return Err(unavailable(format!("token endpoint answered {status}")));
        }
        res.json().await.map_err(unavailable)
    }
    /// The userinfo claims, for a provider that leaves the mail out of the id_token. Their `sub`
    /// must be the id_token's (OpenID Connect Core §5.3.2).
    async fn userinfo(
        &self,
        meta: &Metadata,
        access_token: &str,
        sub: &str,
    ) -> Result<StaffClaims, Error> {
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
            return Err(Error {
                cause: Some("userinfo is about another subject".into()),
                ..Error::new(Reason::AUTHORIZATION_FAILED)
            });
        }
        Ok(claims)
    }
}

#[cfg(test)]
mod tests {
    /// The staff client speaks TLS with aws-lc-rs, the AWS SDKs' provider (ring is not even
    /// compiled in: `cargo tree -i ring` finds nothing).
    #[test]
    fn the_identity_provider_client_uses_the_sdks_crypto_provider() {
        let _ = super::client();
        let installed = rustls::crypto::CryptoProvider::get_default().expect("a provider");
        let suites = |p: &rustls::crypto::CryptoProvider| {
            p.cipher_suites
                .iter()
                .map(|s| s.suite())
                .collect::<Vec<_>>()
        };
        let aws_lc = rustls::crypto::aws_lc_rs::default_provider();
        assert_eq!(suites(installed), suites(&aws_lc));
        assert!(!suites(installed).is_empty());
    }
}
