//! Federated sign-in as one mechanism (docs/federation-design.md): a provider from the list
//! (`providers`), its protocol behind [`Provider`] (the HTTP side is `ciam_api::federation`'s
//! adapters; core stays free of HTTP), the browser-bound single-use state and the callback's
//! outcome (`flow`). A provider's refusals and failures are [`FedError`]s, turned into reasons by
//! one `match` ([`reason_of`]) so every provider answers alike.
//!
//! Staff's account rules (`staff::{claims, account}`: linking by verified company mail, the
//! one-time login code) sit underneath, unchanged; every other provider reaches an account only
//! through a link a phone proof made (`links`).

pub mod company_links;
mod flow;
pub mod identities;
pub mod links;
pub mod org_links;
mod org_phone;
pub mod org_sign_in;
pub mod phone;
mod providers;
mod returning;
pub mod sign_up;

pub use flow::{
    authorization_request, connection_request, finish, redirect_uri, take_state, Callback, LinkFor,
    Pending, Started, Through, STATE_TTL,
};
pub use links::Finished;
#[cfg(any(test, feature = "fakes"))]
pub use providers::MOCK;
pub use providers::{
    Facts, Items, LinkRule, ProviderConfig, ProviderId, Setting, DINGTALK, FEDERATION_ITEMS,
    FEISHU, ORG, PROVIDERS, STAFF, WECHAT, WECOM,
};

use crate::{Ciam, Error, Reason};

/// Who the provider says signed in, as the flow needs it to reach an account.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExternalIdentity {
    /// The provider's stable id for the person (staff: the id_token's `sub`; WeChat: the
    /// `unionid`, the same across every app bound to one Open Platform account).
    pub subject: String,
    /// (app id, the person's id in that app) when the platform also has a per-app id (WeChat's
    /// `openid`): kept beside the link so the QR and the Official Account flow find one person,
    /// never used to key it.
    pub app_subject: Option<(String, String)>,
    pub vouches: Vouches,
    /// Display only; never used to link.
    pub name: Option<String>,
    /// The provider says the person used a second factor (staff: `amr`/`acr`).
    pub mfa: bool,
}

/// What the provider vouches for about the person.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Vouches {
    /// The mail it gave, and whether it declared it verified.
    pub mail: Option<(String, bool)>,
}

/// Where the sign-in was started, from the User-Agent: an in-app browser may need another
/// authorization URL (inside WeChat a QR code cannot be scanned by the phone showing it). The
/// other in-app surfaces come with their providers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Surface {
    Desktop,
    /// WeChat's built-in browser (`MicroMessenger` in the User-Agent). WeCom's says
    /// `MicroMessenger` too, with `wxwork`: it is not this surface.
    InWechat,
    /// WeCom's built-in browser (`wxwork` in the User-Agent): WeCom's in-client authorization
    /// instead of its web login; any other provider serves it as a desktop browser.
    InWecom,
}

impl Surface {
    /// How a state item records it.
    pub const fn tag(self) -> &'static str {
        match self {
            Surface::Desktop => "desktop",
            Surface::InWechat => "inWechat",
            Surface::InWecom => "inWecom",
        }
    }

    /// The surface a state item recorded (`Desktop` for anything else: a state from before
    /// surfaces were recorded).
    pub fn from_tag(tag: &str) -> Surface {
        match tag {
            "inWechat" => Surface::InWechat,
            "inWecom" => Surface::InWecom,
            _ => Surface::Desktop,
        }
    }

    /// The surface of a browser saying `user_agent`.
    pub fn of(user_agent: &str) -> Surface {
        let ua = user_agent.to_ascii_lowercase();
        if ua.contains("wxwork") {
            Surface::InWecom
        } else if ua.contains("micromessenger") {
            Surface::InWechat
        } else {
            Surface::Desktop
        }
    }
}

/// Why a provider's answer gave no identity.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FedError {
    /// The person declined at the provider (the way back has a state and no code): the page
    /// offers to try again rather than saying something failed. FEDERATION_CANCELLED.
    Cancelled,
    /// The provider refused the code (invalid, used, expired or forged), or its answer does not
    /// check out: AUTHORIZATION_FAILED.
    CodeRefused(String),
    /// The platform knows the person but they may not use this app: WeCom's non-member or a
    /// member outside the app's visible range, DingTalk's other organization, Feishu's 20010.
    /// FEDERATION_NOT_PERMITTED.
    NotPermitted(String),
    /// WeChat's snapshot mode (`is_snapshotuser: 1`): a preview identity that must never sign
    /// up or link; the page says how to leave the preview. FEDERATION_SNAPSHOT_USER.
    Snapshot,
    /// The surface cannot be served (inside WeChat without an Official Account): the page says
    /// how to open the site in the browser. FEDERATION_OPEN_IN_BROWSER.
    OpenInBrowser,
    /// Ciam's side is not set up for it (not configured, wrong secret): SERVICE_UNAVAILABLE,
    /// logged as an error.
    Misconfigured(String),
    /// The provider could not be reached in time or answered nonsense: SERVICE_UNAVAILABLE.
    Unavailable(String),
}

/// The reason every provider answers for `e`.
pub fn reason_of(e: &FedError) -> Reason {
    match e {
        FedError::Cancelled => Reason::FEDERATION_CANCELLED,
        FedError::CodeRefused(_) => Reason::AUTHORIZATION_FAILED,
        FedError::NotPermitted(_) => Reason::FEDERATION_NOT_PERMITTED,
        FedError::Snapshot => Reason::FEDERATION_SNAPSHOT_USER,
        FedError::OpenInBrowser => Reason::FEDERATION_OPEN_IN_BROWSER,
        FedError::Misconfigured(_) | FedError::Unavailable(_) => Reason::SERVICE_UNAVAILABLE,
    }
}

impl From<FedError> for Error {
    fn from(e: FedError) -> Error {
        let reason = reason_of(&e);
        let cause = match e {
            FedError::CodeRefused(cause)
            | FedError::NotPermitted(cause)
            | FedError::Misconfigured(cause)
            | FedError::Unavailable(cause) => Some(cause),
            FedError::Cancelled | FedError::Snapshot | FedError::OpenInBrowser => None,
        };
        Error {
            cause,
            ..Error::new(reason)
        }
    }
}

/// One provider's protocol: the authorization request and reading the callback into an
/// identity. Implemented by the HTTP adapters (`ciam_api::federation`); the flow never knows
/// which protocol it speaks.
#[async_trait::async_trait]
pub trait Provider: Send + Sync {
    fn facts(&self) -> &'static Facts;

    /// Whether its settings and secret are present in this process.
    fn configured(&self, ciam: &Ciam) -> bool;

    /// The name the platform goes by in this deployment when it is not the provider's own
    /// (Feishu's international edition: `lark`), so the sign-in page names the button after it.
    fn brand(&self, _ciam: &Ciam) -> Option<&'static str> {
        None
    }

    /// What must be reachable before a state is stored (OpenID Connect: the discovery
    /// document), and whether `surface` can be served (WeChat inside WeChat without an
    /// Official Account: `OpenInBrowser`), so a sign-in that cannot go on costs no write.
    async fn ready(&self, ciam: &Ciam, surface: Surface) -> Result<(), FedError>;

    /// Where the browser goes for this started sign-in.
    async fn authorization_url(
        &self,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError>;

    /// The callback's query (its state already taken as `pending`) → the identity.
    async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refused_code_is_authorization_failed_and_the_rest_unavailable() {
        let e: Error = FedError::CodeRefused("id_token: wrong nonce".into()).into();
        assert_eq!(e.reason, Reason::AUTHORIZATION_FAILED);
        assert_eq!(e.cause.as_deref(), Some("id_token: wrong nonce"));
        for f in [
            FedError::Misconfigured("not configured".into()),
            FedError::Unavailable("timeout".into()),
        ] {
            assert_eq!(reason_of(&f), Reason::SERVICE_UNAVAILABLE);
            assert_eq!(Error::from(f).reason.status(), 503);
        }
    }

    #[test]
    fn the_person_s_own_refusals_have_their_own_reasons() {
        let cases = [
            (FedError::Cancelled, Reason::FEDERATION_CANCELLED, 401),
            (FedError::Snapshot, Reason::FEDERATION_SNAPSHOT_USER, 403),
            (
                FedError::NotPermitted("not a member".into()),
                Reason::FEDERATION_NOT_PERMITTED,
                403,
            ),
            (
                FedError::OpenInBrowser,
                Reason::FEDERATION_OPEN_IN_BROWSER,
                400,
            ),
        ];
        for (f, reason, status) in cases {
            let e = Error::from(f);
            assert_eq!(e.reason, reason);
            assert_eq!(e.reason.status(), status);
        }
    }

    #[test]
    fn only_wechat_s_own_browser_is_in_wechat() {
        let wechat = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 \
                      (KHTML, like Gecko) Mobile/15E148 MicroMessenger/8.0.47(0x18002f2c) \
                      NetType/WIFI Language/zh_CN";
        let wecom = "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like \
                     Gecko) Chrome/81.0.4044.138 Safari/537.36 MicroMessenger/7.0.1 wxwork/4.1.0";
        let desktop = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";
        assert_eq!(Surface::of(wechat), Surface::InWechat);
        assert_eq!(Surface::of(&wechat.to_lowercase()), Surface::InWechat);
        assert_eq!(Surface::of(wecom), Surface::InWecom);
        assert_eq!(Surface::of(desktop), Surface::Desktop);
        for s in [Surface::Desktop, Surface::InWechat, Surface::InWecom] {
            assert_eq!(Surface::from_tag(s.tag()), s);
        }
        assert_eq!(Surface::of(""), Surface::Desktop);
    }
}
