//! WeCom (企业微信) sign-in for a self-built app (CorpID, AgentID, secret), the protocol part
//! (docs/federation-design.md §3.2): the web login on a desktop browser
//! (`login.work.weixin.qq.com/wwlogin/sso/login?login_type=CorpApp`, path/98171), the in-client
//! OAuth inside WeCom (`open.weixin.qq.com/connect/oauth2/authorize`, `snsapi_privateinfo`), then
//! the corp token (`cgi-bin/gettoken`, cached in the store: [`token`]), `cgi-bin/auth/getuserinfo`
//! (code → `userid`, and in the client a `user_ticket`) and `cgi-bin/auth/getuserdetail`
//! (`user_ticket` → the mobile and mail the corp's admins recorded). The person is
//! `<corpid>/<userid>`; a non-member (an `openid`), or inside WeCom a member outside the app's
//! visible range (no `user_ticket`), is not permitted.
//!
//! [`WecomSignIn`] is the `SettingsAdapter` (a `Provider` through `FromSettings`) of
//! `ProviderId::Wecom`: it builds a [`Wecom`] from the process's `CIAM_WECOM_*` configuration on
//! each call, and reads the flow from the surface the state recorded at start (`Surface::InWecom`:
//! the in-client authorization), so the callback knows which authorization issued the code.

pub mod token;

use super::{call_timeout, client, SettingsAdapter};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, ProviderId, Started,
    Surface, Vouches, WECOM,
};
use ciam_core::staff::secure_url;
use ciam_core::{Ciam, Lang};
use serde::Deserialize;
use std::time::Duration;

/// The WeCom settings of a process (`CIAM_WECOM_*`, filled through its Facts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WecomSettings {
    /// The corp's CorpID (public: the authorization URL's `appid`).
    pub corp_id: String,
    /// The self-built app's AgentID.
    pub agent_id: String,
    /// The app's Secret (`corpsecret`): only the callback's function has it.
    pub corp_secret: Option<String>,
    /// The desktop web login's host (`login.work.weixin.qq.com`); tests point it at the fake.
    pub login_base: String,
    /// The in-client authorization's host (`open.weixin.qq.com`).
    pub open_base: String,
    /// The server API's host (`qyapi.weixin.qq.com`).
    pub api_base: String,
    /// Each HTTPS call to WeCom (§3.6: 3 s), so a hung platform fails the callback in time.
    pub call_timeout: Duration,
    /// The corp token's own place in the cache besides the corp and app (an organization's
    /// connection: its id), so two configurations of one app never share a token; None: the
    /// built-in provider's.
    pub cache_tag: Option<String>,
    /// A fresh corp token, the cache neither read nor written (a connection's test sign-in:
    /// the secret is what is tested).
    pub uncached: bool,
}

impl WecomSettings {
    /// The settings of one corp's app on WeCom's hosts, without its secret.
    pub fn new(corp_id: &str, agent_id: &str) -> WecomSettings {
        WecomSettings {
            corp_id: corp_id.to_owned(),
            agent_id: agent_id.to_owned(),
            corp_secret: None,
            login_base: "https://login.work.weixin.qq.com".into(),
            open_base: "https://open.weixin.qq.com".into(),
            api_base: "https://qyapi.weixin.qq.com".into(),
            call_timeout: Duration::from_secs(3),
            cache_tag: None,
            uncached: false,
        }
    }
}

/// Which of WeCom's two authorizations a sign-in uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WecomFlow {
    /// The web login (QR or the desktop client's quick login): no phone or mail.
    Desktop,
    /// Inside WeCom's own browser (`wxwork` in the User-Agent): `snsapi_privateinfo`, the only
    /// way to the member's recorded phone and mail.
    InClient,
}

impl WecomFlow {
    /// The flow of a browser saying `user_agent` (WeCom's says `wxwork`, and `MicroMessenger`
    /// too).
    pub fn of(user_agent: &str) -> WecomFlow {
        WecomFlow::on(Surface::of(user_agent))
    }

    /// The flow of a sign-in started on `surface`: the in-client authorization inside WeCom,
    /// the web login anywhere else (WeChat's browser too).
    pub fn on(surface: Surface) -> WecomFlow {
        match surface {
            Surface::InWecom => WecomFlow::InClient,
            Surface::Desktop | Surface::InWechat => WecomFlow::Desktop,
        }
    }
}

/// What WeCom says about the member besides the identity, until `ExternalIdentity` carries it
/// (docs/federation-design.md §1.2 `tenant`, `vouches.phone`). Admin-entered data: a prefill,
/// never a proof (§3.7).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WecomPerson {
    pub identity: ExternalIdentity,
    /// The corp (the tenant).
    pub corp_id: String,
    pub userid: String,
    /// In the client only, for a member in the app's visible range.
    pub mobile: Option<String>,
    /// The corp mailbox (`biz_mail`), in the client only.
    pub biz_mail: Option<String>,
}

/// Every WeCom answer: HTTP 200 with `errcode` (0: ok) and the call's fields.
#[derive(Debug, Default, Deserialize)]
struct Answer {
    #[serde(default)]
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    access_token: Option<String>,
    expires_in: Option<i64>,
    userid: Option<String>,
    openid: Option<String>,
    user_ticket: Option<String>,
    mobile: Option<String>,
    email: Option<String>,
    biz_mail: Option<String>,
}

/// The corp token was refused: revoked early (40014) or expired (42001). The token is dropped,
/// fetched again once, and the call retried once (§2.2).
fn token_refused(errcode: i64) -> bool {
    matches!(errcode, 40014 | 42001)
}

/// WeCom's `errcode`s as §3.2 sorts them: the code's fault, Ciam's set-up, or WeCom's trouble
/// (frequency limits, busy, and any code not known to mean something else).
fn refusal(call: &str, errcode: i64, errmsg: &str) -> FedError {
    let cause = format!("wecom {call}: errcode {errcode} {errmsg}");
    match errcode {
        40029 => FedError::CodeRefused(cause),
        40001 | 40013 | 40056 | 40091 | 50001 | 60020 => FedError::Misconfigured(cause),
        _ => FedError::Unavailable(cause),
    }
}

fn unavailable(call: &str, cause: impl std::fmt::Display) -> FedError {
    FedError::Unavailable(format!("wecom {call}: {cause}"))
}

/// A call made with the corp token.
#[derive(Clone, Copy)]
enum Call<'a> {
    /// `auth/getuserinfo` with the callback's code.
    UserInfo(&'a str),
    /// `auth/getuserdetail` with the member's ticket.
    UserDetail(&'a str),
}

/// The WeCom adapter over its settings.
#[derive(Clone, Debug)]
pub struct Wecom {
    pub settings: WecomSettings,
    /// The cache key's app part: the AgentID, and the settings' `cache_tag`.
    slot: String,
}

impl Wecom {
    pub fn new(settings: WecomSettings) -> Wecom {
        let slot = match &settings.cache_tag {
            Some(tag) => format!("{}#{tag}", settings.agent_id),
            None => settings.agent_id.clone(),
        };
        Wecom { settings, slot }
    }

    /// `base` + `path`, when the base is https (http only on loopback, for the fakes).
    fn endpoint(base: &str, path: &str) -> Result<url::Url, FedError> {
        if !secure_url(base) {
            return Err(FedError::Misconfigured(format!(
                "wecom: {base} is not an https URL"
            )));
        }
        url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
            .map_err(|e| FedError::Misconfigured(format!("wecom: {base}: {e}")))
    }

    /// Where the browser goes: the web login on a desktop (path/98171: `login_type=CorpApp`,
    /// `appid` the CorpID, `agentid`, `lang`), the in-client authorization inside WeCom
    /// (`snsapi_privateinfo` with `agentid`, ending `#wechat_redirect`).
    pub fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        lang: Lang,
        flow: WecomFlow,
    ) -> Result<String, FedError> {
        let s = &self.settings;
        match flow {
            WecomFlow::Desktop => {
                let mut url = Self::endpoint(&s.login_base, "/wwlogin/sso/login")?;
                url.query_pairs_mut()
                    .append_pair("login_type", "CorpApp")
                    .append_pair("appid", &s.corp_id)
                    .append_pair("agentid", &s.agent_id)
                    .append_pair("redirect_uri", redirect_uri)
                    .append_pair("state", state)
                    .append_pair("lang", lang.pick("zh", "en"));
                Ok(url.into())
            }
            WecomFlow::InClient => {
                let mut url = Self::endpoint(&s.open_base, "/connect/oauth2/authorize")?;
                url.query_pairs_mut()
                    .append_pair("appid", &s.corp_id)
                    .append_pair("redirect_uri", redirect_uri)
                    .append_pair("response_type", "code")
                    .append_pair("scope", "snsapi_privateinfo")
                    .append_pair("state", state)
                    .append_pair("agentid", &s.agent_id);
                url.set_fragment(Some("wechat_redirect"));
                Ok(url.into())
            }
        }
    }

    /// A WeCom request's answer: a timeout, a refused connection, a non-2xx status or a body
    /// that is not WeCom's JSON is Unavailable; `errcode` is the caller's to read.
    async fn answer(call: &str, req: reqwest::RequestBuilder) -> Result<Answer, FedError> {
        let res = req.send().await.map_err(|e| unavailable(call, e))?;
        let status = res.status();
        if !status.is_success() {
            return Err(unavailable(call, format!("answered {status}")));
        }
        res.json().await.map_err(|e| unavailable(call, e))
    }

    /// The corp token's place in the cache: one per corp and app.
    fn cache_key(&self) -> token::CacheKey<'_> {
        token::CacheKey {
            corp_id: &self.settings.corp_id,
            agent_id: &self.slot,
        }
    }

    /// `gettoken`: a fresh corp token and its lifetime in seconds. Never called but through the
    /// cache ([`token::corp_token`]).
    async fn fetch_token(&self) -> Result<(String, i64), FedError> {
        let s = &self.settings;
        let secret = s.corp_secret.as_deref().ok_or_else(|| {
            FedError::Misconfigured("wecom: the corp secret is not in this function".into())
        })?;
        let mut url = Self::endpoint(&s.api_base, "/cgi-bin/gettoken")?;
        url.query_pairs_mut()
            .append_pair("corpid", &s.corp_id)
            .append_pair("corpsecret", secret);
        let a = Self::answer(
            "gettoken",
            client()
                .get(url)
                .timeout(call_timeout(s.call_timeout, "wecom")?),
        )
        .await?;
        if a.errcode != 0 {
            return Err(refusal("gettoken", a.errcode, &a.errmsg));
        }
        match (a.access_token.filter(|t| !t.is_empty()), a.expires_in) {
            (Some(t), Some(ttl)) if ttl > 0 => Ok((t, ttl)),
            _ => Err(unavailable("gettoken", "no access_token or expires_in")),
        }
    }

    /// One call with `token`, as sent.
    async fn send(&self, call: Call<'_>, token: &str) -> Result<Answer, FedError> {
        let s = &self.settings;
        match call {
            Call::UserInfo(code) => {
                let mut url = Self::endpoint(&s.api_base, "/cgi-bin/auth/getuserinfo")?;
                url.query_pairs_mut()
                    .append_pair("access_token", token)
                    .append_pair("code", code);
                Self::answer(
                    "getuserinfo",
                    client()
                        .get(url)
                        .timeout(call_timeout(s.call_timeout, "wecom")?),
                )
                .await
            }
            Call::UserDetail(ticket) => {
                let mut url = Self::endpoint(&s.api_base, "/cgi-bin/auth/getuserdetail")?;
                url.query_pairs_mut().append_pair("access_token", token);
                let body = serde_json::json!({ "user_ticket": ticket });
                let req = client()
                    .post(url)
                    .timeout(call_timeout(s.call_timeout, "wecom")?)
                    .json(&body);
                Self::answer("getuserdetail", req).await
            }
        }
    }

    /// `call` with the cached corp token; on WeCom's invalid-token answer the token is dropped,
    /// fetched again and the call retried, once: a second such answer is Unavailable (§2.2).
    /// `uncached` settings: a fresh token, used once.
    async fn with_token(&self, ciam: &Ciam, call: Call<'_>) -> Result<Answer, FedError> {
        let name = match call {
            Call::UserInfo(_) => "getuserinfo",
            Call::UserDetail(_) => "getuserdetail",
        };
        if self.settings.uncached {
            let (fresh, _) = self.fetch_token().await?;
            let a = self.send(call, &fresh).await?;
            if token_refused(a.errcode) {
                return Err(unavailable(
                    name,
                    format!(
                        "a fresh corp token refused: errcode {} {}",
                        a.errcode, a.errmsg
                    ),
                ));
            }
            return Ok(a);
        }
        let first = token::corp_token(ciam, self.cache_key(), || self.fetch_token()).await?;
        let a = self.send(call, &first.value).await?;
        if !token_refused(a.errcode) {
            return Ok(a);
        }
        token::drop_token(ciam, self.cache_key(), &first).await?;
        let again = token::corp_token(ciam, self.cache_key(), || self.fetch_token()).await?;
        let a = self.send(call, &again.value).await?;
        if token_refused(a.errcode) {
            return Err(unavailable(
                name,
                format!(
                    "a fresh corp token refused too: errcode {} {}",
                    a.errcode, a.errmsg
                ),
            ));
        }
        Ok(a)
    }

    /// The callback's code → the member: `getuserinfo` (a non-member is refused), then in the
    /// client with a ticket `getuserdetail`. No code is the person declining. Calls: 1 (desktop)
    /// or 2 (in the client), + `gettoken` when the cache has no usable token, + the one retry.
    pub async fn identify(
        &self,
        ciam: &Ciam,
        cb: &Callback,
        flow: WecomFlow,
    ) -> Result<WecomPerson, FedError> {
        let Some(code) = cb.code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(FedError::Cancelled);
        };
        let info = self.with_token(ciam, Call::UserInfo(code)).await?;
        if info.errcode != 0 {
            return Err(refusal("getuserinfo", info.errcode, &info.errmsg));
        }
        let some = |v: Option<String>| v.filter(|x| !x.is_empty());
        let Some(userid) = some(info.userid) else {
            if some(info.openid).is_some() {
                return Err(FedError::NotPermitted(format!(
                    "wecom: not permitted: not a member of corp {}",
                    self.settings.corp_id
                )));
            }
            return Err(unavailable("getuserinfo", "no userid or openid"));
        };
        let mut person = WecomPerson {
            identity: ExternalIdentity {
                subject: format!("{}/{userid}", self.settings.corp_id),
                ..ExternalIdentity::default()
            },
            corp_id: self.settings.corp_id.clone(),
            userid,
            ..WecomPerson::default()
        };
        let ticket = some(info.user_ticket);
        if flow == WecomFlow::InClient && ticket.is_none() {
            // snsapi_privateinfo gives a ticket to every member in the app's visible range:
            // none means the corp's admins did not open the app to this member.
            return Err(FedError::NotPermitted(format!(
                "wecom: not permitted: {} is outside the app's visible range",
                person.userid
            )));
        }
        if let (WecomFlow::InClient, Some(ticket)) = (flow, ticket) {
            let d = self.with_token(ciam, Call::UserDetail(&ticket)).await?;
            if d.errcode != 0 {
                // A ticket WeCom issued a moment ago: its refusal is WeCom's trouble.
                return Err(unavailable(
                    "getuserdetail",
                    format!("errcode {} {}", d.errcode, d.errmsg),
                ));
            }
            if some(d.userid).is_some_and(|u| u != person.userid) {
                return Err(FedError::CodeRefused(
                    "wecom getuserdetail is about another member".into(),
                ));
            }
            person.identity.vouches = Vouches {
                mail: some(d.email).map(|m| (m, false)),
            };
            person.mobile = some(d.mobile);
            person.biz_mail = some(d.biz_mail);
        }
        Ok(person)
    }
}

/// WeCom as a federation provider (`adapter(ProviderId::Wecom)`).
pub struct WecomSignIn;

#[async_trait::async_trait]
impl SettingsAdapter for WecomSignIn {
    type Settings = WecomSettings;
    type Client = Wecom;
    const FACTS: &'static Facts = &WECOM;

    /// The settings of this process (`CIAM_WECOM_*`): None when WeCom is off (no CorpID or
    /// AgentID).
    fn settings(ciam: &Ciam) -> Option<WecomSettings> {
        let c = ciam.config.federation.get(&ProviderId::Wecom)?;
        let mut s = WecomSettings::new(c.setting("CORP_ID")?, c.setting("AGENT_ID")?);
        s.corp_secret = c.secret(WECOM.secret_field).map(str::to_owned);
        for (base, into) in [
            ("LOGIN_BASE", &mut s.login_base),
            ("OPEN_BASE", &mut s.open_base),
            ("API_BASE", &mut s.api_base),
        ] {
            if let Some(v) = c.setting(base) {
                *into = v.to_owned();
            }
        }
        Some(s)
    }

    fn client(settings: WecomSettings) -> Result<Wecom, FedError> {
        Ok(Wecom::new(settings))
    }

    async fn start_url(
        wecom: Wecom,
        ciam: &Ciam,
        started: &Started,
        surface: Surface,
    ) -> Result<String, FedError> {
        wecom.authorization_url(
            &redirect_uri(ciam, &WECOM),
            &started.state,
            started.lang,
            WecomFlow::on(surface),
        )
    }

    async fn read_callback(
        wecom: Wecom,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let flow = WecomFlow::on(pending.surface);
        Ok(wecom.identify(ciam, cb, flow).await?.identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The codes the fake does not produce sort as §3.2 says, and an unknown one is WeCom's
    /// trouble, never the person's.
    #[test]
    fn errcodes_sort_into_code_setup_and_wecom_trouble() {
        assert!(matches!(refusal("t", 40029, ""), FedError::CodeRefused(_)));
        for code in [40001, 40013, 40091, 50001, 60020] {
            assert!(matches!(refusal("t", code, ""), FedError::Misconfigured(_)));
        }
        for code in [-1, 45009, 45033, 99999] {
            assert!(matches!(refusal("t", code, ""), FedError::Unavailable(_)));
        }
        assert!(token_refused(40014) && token_refused(42001) && !token_refused(40029));
    }

    #[test]
    fn the_flow_follows_the_user_agent() {
        let in_wecom = "Mozilla/5.0 (iPhone) AppleWebKit/605.1.15 wxwork/4.1.20 \
                        MicroMessenger/7.0.1";
        assert_eq!(WecomFlow::of(in_wecom), WecomFlow::InClient);
        let in_wechat = "Mozilla/5.0 (Linux; Android 14) MicroMessenger/8.0.47.2560";
        assert_eq!(WecomFlow::of(in_wechat), WecomFlow::Desktop);
        assert_eq!(WecomFlow::of("Mozilla/5.0 Firefox/130"), WecomFlow::Desktop);
        let s = WecomSettings::new("ww1", "1000002");
        assert_eq!(s.api_base, "https://qyapi.weixin.qq.com");
        assert_eq!(s.call_timeout, Duration::from_secs(3));
    }
}
