//! WeChat (微信) sign-in, the protocol part (docs/federation-design.md §3.1): the website app's
//! QR login on a desktop browser, the Official Account's web authorization inside WeChat, then
//! the code → `sns/oauth2/access_token` → `sns/userinfo`. The person is keyed on `unionid`
//! (one per Open Platform account, so both flows find one person); the per-app `openid` is kept
//! beside it, never keyed on.
//!
//! [`WechatSignIn`] is the `SettingsAdapter` (a `Provider` through `FromSettings`) of
//! `ProviderId::Wechat`: it builds a [`Wechat`] from the process's `CIAM_WECHAT_*` configuration
//! (`Config::federation`) on each call, and reads the flow from the surface the state recorded at
//! start (QR on a desktop, the Official Account inside WeChat), so the code is exchanged with the
//! app that issued it.

use super::{client, SettingsAdapter};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, ProviderId, Started,
    Surface, WECHAT,
};
use ciam_core::staff::secure_url;
use ciam_core::{Ciam, Lang};
use serde::Deserialize;
use std::time::Duration;

/// One registered WeChat app: its id (public, in the authorization URL) and its secret (only
/// the callback's function has it).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WechatApp {
    pub app_id: String,
    pub secret: Option<String>,
}

/// The WeChat settings of a process (later `CIAM_WECHAT_*`, filled through its Facts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WechatSettings {
    /// The website app of the Open Platform (QR login, `snsapi_login`): desktop browsers.
    pub web: Option<WechatApp>,
    /// The Official Account (web authorization, `snsapi_userinfo`): WeChat's own browser.
    /// Without it a sign-in started inside WeChat is told to open the browser.
    pub oa: Option<WechatApp>,
    /// Where the browser goes (open.weixin.qq.com); tests point it at the fake.
    pub open_base: String,
    /// Where the callback calls (api.weixin.qq.com); tests point it at the fake.
    pub api_base: String,
    /// Each HTTPS call to WeChat (§3.6: 3 s), so a hung platform fails the callback in time.
    pub call_timeout: Duration,
}

impl Default for WechatSettings {
    fn default() -> Self {
        WechatSettings {
            web: None,
            oa: None,
            open_base: "https://open.weixin.qq.com".into(),
            api_base: "https://api.weixin.qq.com".into(),
            call_timeout: Duration::from_secs(3),
        }
    }
}

/// Which of WeChat's two authorizations a sign-in uses: its app id, secret and scope follow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WechatFlow {
    /// Website app QR login (desktop).
    Qr,
    /// Official Account web authorization (inside WeChat).
    OfficialAccount,
}

/// The token endpoint's answer (errors are HTTP 200 with `errcode`).
#[derive(Debug, Default, Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    access_token: Option<String>,
    openid: Option<String>,
    unionid: Option<String>,
    #[serde(default)]
    is_snapshotuser: i64,
}

/// `sns/userinfo`'s answer: only the nickname is used (display only).
#[derive(Debug, Default, Deserialize)]
struct UserInfo {
    #[serde(default)]
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    openid: Option<String>,
    nickname: Option<String>,
    unionid: Option<String>,
}

/// WeChat's documented `errcode`s as §3.1 sorts them: the code's fault, Ciam's set-up, or
/// WeChat's own trouble (busy, and any code not known to mean something else).
fn refusal(call: &str, errcode: i64, errmsg: &str) -> FedError {
    let cause = format!("wechat {call}: errcode {errcode} {errmsg}");
    match errcode {
        40029 | 40163 | 42003 => FedError::CodeRefused(cause),
        40001 | 40013 | 40014 | 40125 | 48001 | 10012 => FedError::Misconfigured(cause),
        _ => FedError::Unavailable(cause),
    }
}

/// WeChat could not be reached in time or answered nonsense.
fn unavailable(call: &str, cause: impl std::fmt::Display) -> FedError {
    FedError::Unavailable(format!("wechat {call}: {cause}"))
}

/// The WeChat adapter over its settings.
#[derive(Clone, Debug, Default)]
pub struct Wechat {
    pub settings: WechatSettings,
}

impl Wechat {
    pub fn new(settings: WechatSettings) -> Wechat {
        Wechat { settings }
    }

    /// The flow a sign-in started on `surface` uses: inside WeChat a QR code cannot be scanned
    /// by the phone showing it, so the Official Account's authorization, or, without one,
    /// `OpenInBrowser` (the page explains how).
    pub fn flow(&self, surface: Surface) -> Result<WechatFlow, FedError> {
        match surface {
            // WeCom's browser is not WeChat's: the QR page, as on a desktop.
            Surface::Desktop | Surface::InWecom => Ok(WechatFlow::Qr),
            Surface::InWechat if self.settings.oa.is_some() => Ok(WechatFlow::OfficialAccount),
            Surface::InWechat => Err(FedError::OpenInBrowser),
        }
    }

    fn app(&self, flow: WechatFlow) -> Result<&WechatApp, FedError> {
        let (app, which) = match flow {
            WechatFlow::Qr => (&self.settings.web, "website app"),
            WechatFlow::OfficialAccount => (&self.settings.oa, "Official Account"),
        };
        app.as_ref()
            .ok_or_else(|| FedError::Misconfigured(format!("wechat: no {which} is configured")))
    }

    /// `base` + `path`, when the base is https (http only on loopback, for the fakes).
    fn endpoint(base: &str, path: &str) -> Result<url::Url, FedError> {
        if !secure_url(base) {
            return Err(FedError::Misconfigured(format!(
                "wechat: {base} is not an https URL"
            )));
        }
        url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
            .map_err(|e| FedError::Misconfigured(format!("wechat: {base}: {e}")))
    }

    /// Where the browser goes: the QR page on a desktop, the Official Account's authorization
    /// inside WeChat (§3.1). The parameters keep WeChat's documented order (appid, redirect_uri,
    /// response_type, scope, state), and `#wechat_redirect` ends both.
    pub fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        lang: Lang,
        surface: Surface,
    ) -> Result<String, FedError> {
        let flow = self.flow(surface)?;
        let app = self.app(flow)?;
        let (path, scope) = match flow {
            WechatFlow::Qr => ("/connect/qrconnect", "snsapi_login"),
            WechatFlow::OfficialAccount => ("/connect/oauth2/authorize", "snsapi_userinfo"),
        };
        let mut url = Self::endpoint(&self.settings.open_base, path)?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("appid", &app.app_id)
                .append_pair("redirect_uri", redirect_uri)
                .append_pair("response_type", "code")
                .append_pair("scope", scope)
                .append_pair("state", state);
            if flow == WechatFlow::Qr {
                q.append_pair("lang", lang.pick("cn", "en"));
            }
        }
        url.set_fragment(Some("wechat_redirect"));
        Ok(url.into())
    }

    /// A GET of `url` with the call timeout, read as JSON: a timeout, a refused connection, a
    /// non-2xx status or a body that is not the expected JSON is Unavailable.
    async fn get<T: for<'de> Deserialize<'de>>(
        &self,
        call: &str,
        url: url::Url,
    ) -> Result<T, FedError> {
        let res = client()
            .get(url)
            .timeout(self.settings.call_timeout)
            .send()
            .await
            .map_err(|e| unavailable(call, e))?;
        let status = res.status();
        if !status.is_success() {
            return Err(unavailable(call, format!("answered {status}")));
        }
        res.json().await.map_err(|e| unavailable(call, e))
    }

    /// The callback's code → the person: the token (with the flow's app id and secret), the
    /// snapshot check before anything else, the `unionid` as the subject, the `openid` as the
    /// per-app subject, the nickname from `sns/userinfo`. No code is the person declining.
    /// Calls: 2.
    pub async fn identify(
        &self,
        cb: &Callback,
        flow: WechatFlow,
    ) -> Result<ExternalIdentity, FedError> {
        let Some(code) = cb.code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(FedError::Cancelled);
        };
        let app = self.app(flow)?;
        let secret = app.secret.as_deref().ok_or_else(|| {
            FedError::Misconfigured("wechat: the app secret is not in this function".into())
        })?;
        let mut url = Self::endpoint(&self.settings.api_base, "/sns/oauth2/access_token")?;
        url.query_pairs_mut()
            .append_pair("appid", &app.app_id)
            .append_pair("secret", secret)
            .append_pair("code", code)
            .append_pair("grant_type", "authorization_code");
        let token: TokenAnswer = self.get("access_token", url).await?;
        if token.errcode != 0 {
            return Err(refusal("access_token", token.errcode, &token.errmsg));
        }
        // A snapshot-mode identity is a preview: nothing may be read or linked for it.
        if token.is_snapshotuser == 1 {
            return Err(FedError::Snapshot);
        }
        let Some(unionid) = token.unionid.filter(|u| !u.is_empty()) else {
            return Err(FedError::Misconfigured(
                "wechat: unionid missing: bind the app to the Open Platform account".into(),
            ));
        };
        let (Some(access_token), Some(openid)) = (
            token.access_token.filter(|t| !t.is_empty()),
            token.openid.filter(|o| !o.is_empty()),
        ) else {
            return Err(unavailable("access_token", "no access_token or openid"));
        };
        let name = self.nickname(&access_token, &openid, &unionid).await?;
        Ok(ExternalIdentity {
            subject: unionid,
            app_subject: Some((app.app_id.clone(), openid)),
            name,
            ..ExternalIdentity::default()
        })
    }

    /// The nickname from `sns/userinfo` (display only), about the person the token names.
    async fn nickname(
        &self,
        access_token: &str,
        openid: &str,
        unionid: &str,
    ) -> Result<Option<String>, FedError> {
        let mut url = Self::endpoint(&self.settings.api_base, "/sns/userinfo")?;
        url.query_pairs_mut()
            .append_pair("access_token", access_token)
            .append_pair("openid", openid);
        let info: UserInfo = self.get("userinfo", url).await?;
        if info.errcode != 0 {
            return Err(refusal("userinfo", info.errcode, &info.errmsg));
        }
        let other = |got: &Option<String>, want: &str| got.as_deref().is_some_and(|g| g != want);
        if other(&info.openid, openid) || other(&info.unionid, unionid) {
            return Err(FedError::CodeRefused(
                "wechat userinfo is about another person".into(),
            ));
        }
        Ok(info.nickname.filter(|n| !n.is_empty()))
    }
}

/// WeChat as a federation provider (`adapter(ProviderId::Wechat)`).
pub struct WechatSignIn;

#[async_trait::async_trait]
impl SettingsAdapter for WechatSignIn {
    type Settings = WechatSettings;
    type Client = Wechat;
    const FACTS: &'static Facts = &WECHAT;

    /// The settings of this process (`CIAM_WECHAT_*`): None when WeChat is off.
    fn settings(ciam: &Ciam) -> Option<WechatSettings> {
        let c = ciam.config.federation.get(&ProviderId::Wechat)?;
        let app = |id: &str, secret: &str| {
            c.setting(id).map(|app_id| WechatApp {
                app_id: app_id.to_owned(),
                secret: c.secret(secret).map(str::to_owned),
            })
        };
        let web = app("APP_ID", "appSecret")?;
        let mut s = WechatSettings {
            web: Some(web),
            oa: app("OA_APP_ID", "oaAppSecret"),
            ..WechatSettings::default()
        };
        if let Some(base) = c.setting("OPEN_BASE") {
            s.open_base = base.to_owned();
        }
        if let Some(base) = c.setting("API_BASE") {
            s.api_base = base.to_owned();
        }
        Some(s)
    }

    fn client(settings: WechatSettings) -> Result<Wechat, FedError> {
        Ok(Wechat::new(settings))
    }

    fn serves(wechat: &Wechat, surface: Surface) -> Result<(), FedError> {
        wechat.flow(surface).map(|_| ())
    }

    async fn start_url(
        wechat: Wechat,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError> {
        wechat.authorization_url(
            &redirect_uri(ciam, &WECHAT),
            &started.state,
            started.lang,
            surface,
        )
    }

    async fn read_callback(
        wechat: Wechat,
        _ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        // A state started inside WeChat whose Official Account was removed since: the flow is
        // gone, as a refused code would be.
        let flow = wechat.flow(pending.surface).map_err(|_| {
            FedError::Misconfigured("wechat: the Official Account is no longer configured".into())
        })?;
        wechat.identify(cb, flow).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The documented codes the fake does not produce (busy, credential, scope, empty appid)
    /// sort as §3.1 says, and an unknown one is WeChat's trouble, never the person's.
    #[test]
    fn errcodes_sort_into_code_setup_and_wechat_trouble() {
        for code in [40029, 40163, 42003] {
            assert!(matches!(refusal("t", code, ""), FedError::CodeRefused(_)));
        }
        for code in [40125, 40001, 40014, 48001, 10012, 40013] {
            assert!(matches!(refusal("t", code, ""), FedError::Misconfigured(_)));
        }
        for code in [-1, 45011, 99999] {
            assert!(matches!(refusal("t", code, ""), FedError::Unavailable(_)));
        }
        assert_eq!(
            refusal("access_token", 40125, "invalid appsecret"),
            FedError::Misconfigured("wechat access_token: errcode 40125 invalid appsecret".into())
        );
    }
}
