//! The HTTP side of federated sign-in: one adapter per protocol behind
//! `ciam_core::federation::Provider` (`oidc`: the company OpenID Connect provider of staff
//! sign-in; `wechat`, `wecom`, `dingtalk`, `feishu`: WeChat's, WeCom's, DingTalk's and
//! Feishu's/Lark's), picked by the row's provider ([`adapter`]); an organization's connection
//! (`org`) built from its item; and the HTTPS client they share. The flow and its rules (state, linking, the login code) are `ciam_core::federation`'s.

pub mod dingtalk;
pub mod feishu;
#[cfg(feature = "fakes")]
mod mock;
mod oidc;
pub mod org;
pub mod wechat;
pub mod wecom;

use ciam_core::federation::{
    Callback, ExternalIdentity, Facts, FedError, Pending, Provider, ProviderId, Started, Surface,
};
use ciam_core::Ciam;
use std::sync::OnceLock;
use std::time::Duration;

/// The adapter that speaks `provider`'s protocol.
pub fn adapter(provider: ProviderId) -> &'static dyn Provider {
    match provider {
        ProviderId::Staff => &oidc::Oidc,
        ProviderId::Wechat => &FromSettings(wechat::WechatSignIn),
        ProviderId::Wecom => &FromSettings(wecom::WecomSignIn),
        ProviderId::Dingtalk => &FromSettings(dingtalk::DingtalkSignIn),
        ProviderId::Feishu => &FromSettings(feishu::FeishuSignIn),
        #[cfg(feature = "fakes")]
        ProviderId::Mock => &mock::Mock,
        ProviderId::Org => &org::Unrouted,
    }
}

/// The shape WeChat, WeCom, DingTalk and Feishu share: a client made from this process's
/// settings (`CIAM_<PROVIDER>_*`) on each call. [`FromSettings`] makes it a [`Provider`]: its
/// `facts`, `configured` (the settings are present), `ready` (a client can be made and
/// [`serves`](SettingsAdapter::serves) the surface), and the two calls with the client, or
/// `Misconfigured` when the provider is off.
#[async_trait::async_trait]
pub trait SettingsAdapter: Send + Sync {
    /// What [`settings`](SettingsAdapter::settings) reads (Feishu's may be a set-up error).
    type Settings;
    type Client: Send + Sync;
    const FACTS: &'static Facts;

    /// This process's settings: None when the provider is off.
    fn settings(ciam: &Ciam) -> Option<Self::Settings>;

    /// The client of `settings`.
    fn client(settings: Self::Settings) -> Result<Self::Client, FedError>;

    /// The client of this process's settings, `Misconfigured` when the provider is off.
    fn connect(ciam: &Ciam) -> Result<Self::Client, FedError> {
        let settings = Self::settings(ciam).ok_or_else(|| {
            FedError::Misconfigured(format!("{}: not configured", Self::FACTS.name))
        })?;
        Self::client(settings)
    }

    /// `Provider::brand`.
    fn brand(_ciam: &Ciam) -> Option<&'static str> {
        None
    }

    /// Whether `client` can serve `surface` (`Provider::ready` once the client is made).
    fn serves(_client: &Self::Client, _surface: Surface) -> Result<(), FedError> {
        Ok(())
    }

    /// `Provider::authorization_url` with the client.
    async fn start_url(
        client: Self::Client,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError>;

    /// `Provider::identify` with the client.
    async fn read_callback(
        client: Self::Client,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError>;
}

/// A [`SettingsAdapter`] as a [`Provider`] ([`adapter`]).
pub struct FromSettings<A>(pub A);

#[async_trait::async_trait]
impl<A: SettingsAdapter> Provider for FromSettings<A> {
    fn facts(&self) -> &'static Facts {
        A::FACTS
    }

    fn configured(&self, ciam: &Ciam) -> bool {
        A::settings(ciam).is_some()
    }

    fn brand(&self, ciam: &Ciam) -> Option<&'static str> {
        A::brand(ciam)
    }

    async fn ready(&self, ciam: &Ciam, surface: Surface) -> Result<(), FedError> {
        A::serves(&A::connect(ciam)?, surface)
    }

    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError> {
        A::start_url(A::connect(ciam)?, ciam, started, surface).await
    }

    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        A::read_callback(A::connect(ciam)?, ciam, cb, pending).await
    }
}

/// Drops the OpenID Connect discovery document kept for `issuer` (a connection was tested).
pub fn oidc_forget(issuer: &str) {
    oidc::forget(issuer);
}

/// The linking providers this deployment offers: configured here, in the provider list's
/// order (`GET /auth/federation`, the security centre's "Link").
pub fn offered(ciam: &ciam_core::Ciam) -> impl Iterator<Item = ProviderId> + '_ {
    ProviderId::linking().filter(|p| adapter(*p).configured(ciam))
}

/// Whether a sign-in or a link can leave for `provider`: it is configured, and there is a
/// public URL to come back to (CIAM_PUBLIC_URL unset on AWS: no callback to register).
pub fn can_start(ciam: &ciam_core::Ciam, provider: ProviderId) -> bool {
    adapter(provider).configured(ciam) && !ciam.config.public_url.is_empty()
}

/// Where the browser saying `headers`' User-Agent is (`Surface::of`).
pub fn surface(headers: &axum::http::HeaderMap) -> ciam_core::federation::Surface {
    let ua = headers
        .get(axum::http::header::USER_AGENT)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    ciam_core::federation::Surface::of(ua)
}

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

/// The timeout of one call to a platform (`dingtalk`, `feishu`, `wecom`): its own, or, when
/// the request's deadline (`ciam_core::deadline`) leaves less than that plus the store's
/// `RESERVE`, no call at all (docs/federation-design.md §1.2): the answer is then
/// SERVICE_UNAVAILABLE in time, never a Lambda timeout.
pub(crate) fn call_timeout(
    own: Duration,
    platform: &str,
) -> Result<Duration, ciam_core::federation::FedError> {
    match ciam_core::deadline::remaining() {
        Some(left) if left < own + ciam_core::deadline::RESERVE => Err(
            ciam_core::federation::FedError::Unavailable(format!("{platform}: request deadline")),
        ),
        _ => Ok(own),
    }
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
