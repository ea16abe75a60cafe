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
//!
//! Here: the protocol's shared parts (issuer, discovery, JWKS, errors). `authorize`: the
//! browser's half (request, consent screen, Allow); `token`: the partner's half (code
//! redemption, userinfo); `records`: the stored items.

mod authorize;
pub mod logout;
mod records;
mod token;

pub use authorize::{approve, authorize, request_context, Approved, Authorize};
pub use records::{AccessToken, Code, Request};
pub use token::{token, userinfo, TokenRequest, Tokens};

use crate::apps::{self, with_params};
use crate::error::Result;
pub use crate::signer::sign_jwt;
use crate::signer::OidcSigner;
use crate::{Ciam, Error, Reason};
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ciam_store::StoreError;
use serde_json::{json, Value as Json};

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
        // Every retryable fault (a throttle, a conflict, an outage) is "try again"; a condition
        // that reached `?` (a call site that did not expect one) is reported the same way, as a
        // race lost to another request; the rest is the server's fault.
        if e.is_retryable() || e.is_condition_failed() {
            tracing::warn!(store_kind = e.kind(), cause = %e, "store fault");
            return OAuthError::new("temporarily_unavailable", "busy, retry");
        }
        tracing::error!(store_kind = e.kind(), cause = %e, "oidc: store failure");
        OAuthError::new("server_error", "internal error")
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
    scopes.push(crate::org::tokens::SCOPE);
    json!({
        "issuer": iss,
        "authorization_endpoint": format!("{iss}/authorize"),
        "token_endpoint": format!("{iss}/token"),
        "userinfo_endpoint": format!("{iss}/userinfo"),
        "end_session_endpoint": format!("{iss}/logout"),
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
            "iss", "sub", "aud", "exp", "iat", "auth_time", "amr", "nonce", "azp", "at_hash", "sid",
            "nickname", "picture", "company", "phone_number", "phone_number_verified",
            "email", "email_verified", "org_id", "org_roles",
        ],
        "ui_locales_supported": ["zh-CN", "en-US"],
        "authorization_response_iss_parameter_supported": true,
        "request_parameter_supported": false,
        "request_uri_parameter_supported": false,
        "claims_parameter_supported": false,
        "backchannel_logout_supported": true,
        "backchannel_logout_session_supported": true,
        "frontchannel_logout_supported": false,
        "frontchannel_logout_session_supported": false,
    })
}

/// What signs Back-Channel Logout tokens: a key of its own (`Keys::logout_signer`), so the
/// delivery function that sends them to partner hosts holds no id_token key.
pub fn logout_signer(ciam: &Ciam) -> std::sync::Arc<dyn OidcSigner> {
    ciam.keys.logout_signer(ciam.config.oidc_key_version)
}

/// `GET /jwks`: the signer's public keys, the signing one first. Derived keys: the current
/// version (N), the next one (N+1) and the one before (N-1): after a rotation to N+1, clients
/// that cached this document (5 minutes) already know the new key, and id_tokens signed just
/// before the rotation still verify. KMS: the current key and the configured previous ones.
/// Then the logout tokens' key(s), each under its own `kid` (docs/oidc.md): a partner finds
/// either kind of token's key by its `kid`, as before.
pub fn jwks(ciam: &Ciam) -> Json {
    let mut keys = signer(ciam).jwks();
    for k in logout_signer(ciam).jwks() {
        if !keys.iter().any(|have| have["kid"] == k["kid"]) {
            keys.push(k);
        }
    }
    json!({ "keys": keys })
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

#[cfg(test)]
mod tests {
    use super::*;

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
