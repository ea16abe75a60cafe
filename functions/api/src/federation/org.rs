//! An organization's connection as a `ciam_core::federation::Provider` (provider `org`,
//! docs/organizations-connections.md §0.2): the protocol's adapter built from the connection's
//! item instead of this process's settings, its sealed secret opened in the callback only.
//!
//! - OpenID Connect: `oidc::Rp` from the connection's issuer, client id, scopes and `mfaAcr`.
//! - WeCom: `wecom::Wecom` of the connection's `corpId` and `agentId` (the corp token is the
//!   corp's: a code of another corp's person answers an `openid`, refused); in-client, the
//!   member's corp mailbox (`biz_mail`) is vouched for, the organization's verified domains
//!   deciding whether it links (§0.6).
//! - DingTalk: `dingtalk::Dingtalk` of `clientId` pinned to `corpId` (the `corpid` scope; a
//!   token for another organization is refused). Its mail is the one the person typed: never
//!   vouched for.
//! - Feishu/Lark: `feishu::Feishu` of `appId` on `region`'s hosts, pinned to `tenantKey` (a
//!   person of another tenant is refused); the tenant's `enterprise_email` is vouched for.
//!
//! The platforms' hosts are the deployment's: those of the built-in provider's configuration
//! (`CIAM_WECOM_API_BASE` and the like, which the tests point at the local fakes) when set, else
//! the documented ones.

use super::dingtalk::{Dingtalk, DingtalkRegion, DingtalkSettings};
use super::feishu::{Feishu, FeishuRegion, FeishuSettings};
use super::oidc::{self, Rp};
use super::wecom::{Wecom, WecomFlow, WecomSettings};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, Provider, ProviderId,
    Started, Surface, ORG,
};
use ciam_core::org::connections::{Connection, Protocol};
use ciam_core::Ciam;

/// The scopes asked for when the connection names none.
const DEFAULT_SCOPES: &str = "openid email profile";

/// A sign-in through one connection.
pub struct ConnectionSignIn<'a>(pub &'a Connection);

impl ConnectionSignIn<'_> {
    /// A required setting of the connection (checked when it was written; a missing one is a
    /// connection written by something else).
    fn setting(&self, name: &str) -> Result<String, FedError> {
        let c = self.0;
        c.settings
            .get(name)
            .filter(|v| !v.is_empty())
            .cloned()
            .ok_or_else(|| {
                FedError::Misconfigured(format!("connection {}: no {name}", c.conn_id.as_str()))
            })
    }

    /// The relying party of the connection; `secret` only in the callback.
    fn rp(&self, ciam: &Ciam, secret: Option<String>) -> Result<Rp, FedError> {
        let c = self.0;
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
        match self.0.protocol {
            Protocol::Oidc => self.0.settings.get("issuer").map(String::as_str),
            _ => None,
        }
    }

    /// The WeCom client of the connection's corp and app: the corp token cached for this
    /// connection alone (`FEDTOKEN#wecom#<corpId>#<agentId>#<connId>`: another organization's
    /// connection naming the same app never uses a token fetched with this one's secret), and
    /// fetched fresh for a `test` sign-in, so a test proves the secret.
    fn wecom(&self, ciam: &Ciam, secret: Option<String>, test: bool) -> Result<Wecom, FedError> {
        let mut s = WecomSettings::new(&self.setting("corpId")?, &self.setting("agentId")?);
        s.corp_secret = secret;
        s.cache_tag = Some(self.0.conn_id.as_str().to_owned());
        s.uncached = test;
        for (name, into) in [
            ("LOGIN_BASE", &mut s.login_base),
            ("OPEN_BASE", &mut s.open_base),
            ("API_BASE", &mut s.api_base),
        ] {
            if let Some(v) = base(ciam, ProviderId::Wecom, name) {
                *into = v;
            }
        }
        Ok(Wecom::new(s))
    }

    /// The DingTalk client of the connection's app, pinned to its `corpId`.
    fn dingtalk(&self, ciam: &Ciam, secret: Option<String>) -> Result<Dingtalk, FedError> {
        let mut s = DingtalkSettings::new(&self.setting("clientId")?, DingtalkRegion::Mainland);
        s.client_secret = secret;
        s.corp_id = Some(self.setting("corpId")?);
        for (name, into) in [
            ("LOGIN_BASE", &mut s.login_base),
            ("API_BASE", &mut s.api_base),
        ] {
            if let Some(v) = base(ciam, ProviderId::Dingtalk, name) {
                *into = v;
            }
        }
        Ok(Dingtalk::new(s))
    }

    /// The Feishu (or Lark) client of the connection's app.
    fn feishu(&self, ciam: &Ciam, secret: Option<String>) -> Result<Feishu, FedError> {
        let region = FeishuRegion::parse(self.0.settings.get("region").map(String::as_str))
            .ok_or_else(|| {
                FedError::Misconfigured(format!(
                    "connection {}: not a Feishu region",
                    self.0.conn_id.as_str()
                ))
            })?;
        let mut s = FeishuSettings::new(&self.setting("appId")?, region);
        s.app_secret = secret;
        for (name, into) in [
            ("ACCOUNTS_BASE", &mut s.accounts_base),
            ("OPEN_BASE", &mut s.open_base),
        ] {
            if let Some(v) = base(ciam, ProviderId::Feishu, name) {
                *into = v;
            }
        }
        Ok(Feishu::new(s))
    }

    /// The connection's secret in the clear. A secret that no longer opens (sealed under a
    /// root retired since) is Misconfigured: its admin enters it again.
    fn secret(&self, ciam: &Ciam) -> Result<String, FedError> {
        self.0.open_secret(ciam).map_err(|e| {
            FedError::Misconfigured(format!(
                "connection {}: the secret no longer opens ({})",
                self.0.conn_id.as_str(),
                e.cause.unwrap_or_default()
            ))
        })
    }
}

/// The deployment's host `name` of the built-in `provider` (see the module's doc).
fn base(ciam: &Ciam, provider: ProviderId, name: &str) -> Option<String> {
    ciam.config
        .federation
        .get(&provider)
        .and_then(|c| c.setting(name))
        .map(str::to_owned)
}

/// The pinned tenant's own record of the person's mail, vouched for (§0.6: the organization's
/// verified domains decide whether it links); else the mail as the platform gave it.
fn tenant_mail(mut identity: ExternalIdentity, recorded: Option<String>) -> ExternalIdentity {
    if let Some(mail) = recorded {
        identity.vouches.mail = Some((mail, true));
    }
    identity
}

#[async_trait::async_trait]
impl Provider for ConnectionSignIn<'_> {
    fn facts(&self) -> &'static Facts {
        &ORG
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        !ciam.config.public_url.is_empty()
    }

    /// OpenID Connect: the discovery document; the others: their settings make a client.
    async fn ready(&self, ciam: &Ciam, _surface: Surface) -> Result<(), FedError> {
        match self.0.protocol {
            Protocol::Oidc => oidc::discover(&self.rp(ciam, None)?).await.map(|_| ()),
            Protocol::Wecom => self.wecom(ciam, None, false).map(|_| ()),
            Protocol::Dingtalk => self.dingtalk(ciam, None).map(|_| ()),
            Protocol::Feishu => self.feishu(ciam, None).map(|_| ()),
        }
    }

    /// The protocol's authorization URL with the one redirect URI of every connection. WeCom
    /// inside WeCom's browser: the in-client authorization (the member's corp mailbox).
    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError> {
        let back = redirect_uri(ciam, &ORG);
        match self.0.protocol {
            Protocol::Oidc => oidc::authorization_url(&self.rp(ciam, None)?, started).await,
            Protocol::Wecom => self.wecom(ciam, None, false)?.authorization_url(
                &back,
                &started.state,
                started.lang,
                WecomFlow::on(surface),
            ),
            Protocol::Dingtalk => self
                .dingtalk(ciam, None)?
                .authorization_url(&back, &started.state),
            Protocol::Feishu => {
                let challenge = started.code_challenge.as_deref().ok_or_else(|| {
                    FedError::Misconfigured("feishu: the state has no verifier".into())
                })?;
                self.feishu(ciam, None)?
                    .authorization_url(&back, &started.state, challenge)
            }
        }
    }

    /// Opens the connection's secret (the only place it is opened), then the protocol's
    /// callback, and the tenant pinning: WeCom's corp token answers for its corp only,
    /// DingTalk's token names its organization, Feishu's person their tenant; another tenant's
    /// person is NotPermitted (FEDERATION_NOT_PERMITTED).
    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let secret = Some(self.secret(ciam)?);
        match self.0.protocol {
            Protocol::Oidc => oidc::identify(ciam, &self.rp(ciam, secret)?, cb, pending).await,
            Protocol::Wecom => {
                let flow = WecomFlow::on(pending.surface);
                let test = pending.connection.as_ref().is_some_and(|t| t.test);
                let wecom = self.wecom(ciam, secret, test)?;
                let person = wecom.identify(ciam, cb, flow).await?;
                Ok(tenant_mail(person.identity, person.biz_mail))
            }
            Protocol::Dingtalk => Ok(self.dingtalk(ciam, secret)?.identify(cb).await?.identity),
            Protocol::Feishu => {
                let feishu = self.feishu(ciam, secret)?;
                let verifier = pending.verifier.as_deref().unwrap_or("");
                let person = feishu
                    .identify(cb, &redirect_uri(ciam, &ORG), verifier)
                    .await?;
                let pinned = self.setting("tenantKey")?;
                if person.tenant_key.as_deref() != Some(pinned.as_str()) {
                    return Err(FedError::NotPermitted(format!(
                        "feishu: not permitted: the person is of tenant {:?}, not {pinned}",
                        person.tenant_key
                    )));
                }
                Ok(tenant_mail(person.identity, person.enterprise_mail))
            }
        }
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
