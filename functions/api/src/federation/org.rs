//! An organization's connection as a `ciam_core::federation::Provider` (provider `org`,
//! docs/organizations-connections.md §0.2): the protocol's adapter built from the connection's
//! item instead of this process's settings. OpenID Connect only for now (`oidc::Rp` from the
//! connection's issuer, client id, scopes and `mfaAcr`; its sealed secret opened in the
//! callback only); WeCom, DingTalk and Feishu connections (tenant pinning) are a later step and
//! answer Misconfigured.

use super::oidc::{self, Rp};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, Provider, Started, Surface,
    ORG,
};
use ciam_core::org::connections::{Connection, Protocol};
use ciam_core::Ciam;

/// The scopes asked for when the connection names none.
const DEFAULT_SCOPES: &str = "openid email profile";

/// A sign-in through one connection.
pub struct ConnectionSignIn<'a>(pub &'a Connection);

impl ConnectionSignIn<'_> {
    /// The relying party of the connection; `secret` only in the callback.
    fn rp(&self, ciam: &Ciam, secret: Option<String>) -> Result<Rp, FedError> {
        let c = self.0;
        if c.protocol != Protocol::Oidc {
            return Err(FedError::Misconfigured(format!(
                "connection {}: the {} protocol is not served yet",
                c.conn_id.as_str(),
                c.protocol.as_str()
            )));
        }
        let setting = |name: &str| c.settings.get(name).cloned().unwrap_or_default();
        let scopes = c
            .settings
            .get("scopes")
            .map(String::as_str)
            .unwrap_or(DEFAULT_SCOPES);
        let scopes = if scopes.split(' ').any(|s| s == "openid") {
            scopes.to_owned()
        } else {
            format!("openid {scopes}")
        };
        Ok(Rp {
            issuer: setting("issuer"),
            client_id: setting("clientId"),
            client_secret: secret,
            scopes,
            mfa_acr: c
                .settings
                .get("mfaAcr")
                .map(|a| vec![a.clone()])
                .unwrap_or_default(),
            label: format!("connection {}", c.conn_id.as_str()),
            redirect_uri: redirect_uri(ciam, &ORG),
        })
    }

    /// The connection's issuer (its discovery document is dropped after a test).
    pub fn issuer(&self) -> Option<&str> {
        self.0.settings.get("issuer").map(String::as_str)
    }
}

#[async_trait::async_trait]
impl Provider for ConnectionSignIn<'_> {
    fn facts(&self) -> &'static Facts {
        &ORG
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        !ciam.config.public_url.is_empty()
    }

    async fn ready(&self, ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        oidc::discover(&self.rp(ciam, None)?).await.map(|_| ())
    }

    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        oidc::authorization_url(&self.rp(ciam, None)?, started).await
    }

    /// Opens the connection's secret (the only place it is opened), then the protocol's
    /// callback. A secret that no longer opens (sealed under a root retired since) is
    /// Misconfigured: its admin enters it again.
    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let secret = self.0.open_secret(ciam).map_err(|e| {
            FedError::Misconfigured(format!(
                "connection {}: the secret no longer opens ({})",
                self.0.conn_id.as_str(),
                e.cause.unwrap_or_default()
            ))
        })?;
        oidc::identify(ciam, &self.rp(ciam, Some(secret))?, cb, pending).await
    }
}

/// The row-less stand-in for provider `org` in `super::adapter`: a connection's sign-in is
/// built from its item (`ConnectionSignIn`), never from the row.
pub struct Unrouted;

#[async_trait::async_trait]
impl Provider for Unrouted {
    fn facts(&self) -> &'static Facts {
        &ORG
    }

    fn configured(&self, _ciam: &Ciam) -> bool {
        false
    }

    async fn ready(&self, _ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        Err(unrouted())
    }

    async fn authorization_url(
        &self,
        _ciam: &Ciam,
        _started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        Err(unrouted())
    }

    async fn identify(
        &self,
        _ciam: &Ciam,
        _cb: &Callback,
        _pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        Err(unrouted())
    }
}

fn unrouted() -> FedError {
    FedError::Misconfigured("a connection's sign-in goes through /auth/org".into())
}
