//! DingTalk (钉钉) sign-in, the protocol part (docs/federation-design.md §3.3): DingTalk's
//! current OAuth 2.0 (`login.dingtalk.com/oauth2/auth`, back with **`authCode`**), the code →
//! `POST v1.0/oauth2/userAccessToken` (JSON `clientId, clientSecret, code, grantType`) →
//! `GET v1.0/contact/users/me` (header `x-acs-dingtalk-access-token`). The person is keyed on
//! `unionId`; the per-app `openId` is kept beside it, never keyed on. The mainland hosts
//! (`*.dingtalk.com`) or the international ones (`*.dingtalk.io`, help.dingtalk.io
//! obtain-identity-credentials / obtain-user-token) are a setting ([`DingtalkRegion`]).
//!
//! [`DingtalkSignIn`] is the `SettingsAdapter` (a `Provider` through `FromSettings`) of
//! `ProviderId::Dingtalk`: it builds a [`Dingtalk`] from the process's `CIAM_DINGTALK_*`
//! configuration on each call. The callback handler reads DingTalk's `authCode` parameter
//! ([`CODE_PARAM`]) into `Callback::code`.

use super::{call_timeout, client, SettingsAdapter};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, ProviderId, Started,
    Surface, DINGTALK,
};
use ciam_core::staff::secure_url;
use ciam_core::Ciam;
use serde::Deserialize;
use std::time::Duration;

/// The callback's parameter that carries the code: DingTalk says `authCode`, not `code`.
pub const CODE_PARAM: &str = "authCode";

/// Which of DingTalk's two sets of hosts the app lives on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum DingtalkRegion {
    /// `login.dingtalk.com`, `api.dingtalk.com`.
    #[default]
    Mainland,
    /// `login.dingtalk.io`, `api.dingtalk.io` (the international platform's pages).
    International,
}

impl DingtalkRegion {
    /// (login base, API base) of the region.
    pub fn bases(self) -> (&'static str, &'static str) {
        match self {
            DingtalkRegion::Mainland => ("https://login.dingtalk.com", "https://api.dingtalk.com"),
            DingtalkRegion::International => {
                ("https://login.dingtalk.io", "https://api.dingtalk.io")
            }
        }
    }
}

/// The DingTalk settings of a process (later `CIAM_DINGTALK_*`, filled through its Facts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DingtalkSettings {
    /// The app's Client ID (AppKey); public, in the authorization URL.
    pub client_id: String,
    /// The app's Client Secret (AppSecret): only the callback's function has it.
    pub client_secret: Option<String>,
    /// Only members of this organization may sign in (the `corpid` scope is then asked, and a
    /// token for another organization is refused). None: any DingTalk account.
    pub corp_id: Option<String>,
    /// Where the browser goes (`login.dingtalk.com`); tests point it at the fake.
    pub login_base: String,
    /// Where the callback calls (`api.dingtalk.com`); tests point it at the fake.
    pub api_base: String,
    /// Each HTTPS call to DingTalk (§3.6: 3 s), so a hung platform fails the callback in time.
    pub call_timeout: Duration,
}

impl DingtalkSettings {
    /// The settings of `client_id` on `region`'s hosts, without a secret or organization.
    pub fn new(client_id: &str, region: DingtalkRegion) -> DingtalkSettings {
        let (login, api) = region.bases();
        DingtalkSettings {
            client_id: client_id.to_owned(),
            client_secret: None,
            corp_id: None,
            login_base: login.to_owned(),
            api_base: api.to_owned(),
            call_timeout: Duration::from_secs(3),
        }
    }
}

/// What DingTalk says about the person besides the identity: the tenant and the phone the
/// platform holds (a prefill of Ciam's own proof, never a proof), until `ExternalIdentity`
/// carries them (docs/federation-design.md §1.2 `tenant`, `vouches.phone`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct DingtalkPerson {
    pub identity: ExternalIdentity,
    /// The organization the token was issued for (`corpId`), when the `corpid` scope was asked.
    pub corp_id: Option<String>,
    /// `+<stateCode> <mobile>` as DingTalk gives it; display and prefill only.
    pub mobile: Option<String>,
}

/// `userAccessToken`'s answer (errors are HTTP 4xx with `{code, message}`).
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct TokenAnswer {
    access_token: Option<String>,
    corp_id: Option<String>,
}

/// `users/me`'s answer.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Me {
    union_id: Option<String>,
    open_id: Option<String>,
    nick: Option<String>,
    mobile: Option<String>,
    state_code: Option<String>,
    email: Option<String>,
}

/// DingTalk's error body.
#[derive(Debug, Default, Deserialize)]
struct ErrorBody {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

/// A 4xx of `call` sorted as §3.3 says: the code's fault when DingTalk names the code
/// (`invalidAuthCode` and the like), Ciam's set-up when it names the client (`invalid.client`)
/// or refuses the token on `users/me` (a missing permission); any other 4xx is DingTalk's
/// trouble as far as the person can tell.
fn refusal(call: &str, status: u16, body: &ErrorBody) -> FedError {
    let cause = format!(
        "dingtalk {call}: HTTP {status} {} {}",
        body.code, body.message
    );
    let code = body.code.to_ascii_lowercase();
    if call == "userAccessToken" && code.contains("code") {
        FedError::CodeRefused(cause)
    } else if code.contains("client") || code.contains("secret") || call == "users/me" {
        FedError::Misconfigured(cause)
    } else {
        FedError::Unavailable(cause)
    }
}

fn unavailable(call: &str, cause: impl std::fmt::Display) -> FedError {
    FedError::Unavailable(format!("dingtalk {call}: {cause}"))
}

/// The DingTalk adapter over its settings.
#[derive(Clone, Debug)]
pub struct Dingtalk {
    pub settings: DingtalkSettings,
}

impl Dingtalk {
    pub fn new(settings: DingtalkSettings) -> Dingtalk {
        Dingtalk { settings }
    }

    /// `base` + `path`, when the base is https (http only on loopback, for the fakes).
    fn endpoint(base: &str, path: &str) -> Result<url::Url, FedError> {
        if !secure_url(base) {
            return Err(FedError::Misconfigured(format!(
                "dingtalk: {base} is not an https URL"
            )));
        }
        url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
            .map_err(|e| FedError::Misconfigured(format!("dingtalk: {base}: {e}")))
    }

    /// The scope asked: `openid`, plus `corpid` when one organization is required.
    fn scope(&self) -> &'static str {
        if self.settings.corp_id.is_some() {
            "openid corpid"
        } else {
            "openid"
        }
    }

    /// Where the browser goes: DingTalk's authorization page, with `prompt=consent` (the only
    /// value DingTalk documents) in its documented order.
    pub fn authorization_url(&self, redirect_uri: &str, state: &str) -> Result<String, FedError> {
        let mut url = Self::endpoint(&self.settings.login_base, "/oauth2/auth")?;
        url.query_pairs_mut()
            .append_pair("redirect_uri", redirect_uri)
            .append_pair("response_type", "code")
            .append_pair("client_id", &self.settings.client_id)
            .append_pair("scope", self.scope())
            .append_pair("state", state)
            .append_pair("prompt", "consent");
        Ok(url.into())
    }

    /// The answer of a sent request as `T`: a timeout or refused connection, a 5xx or a body
    /// that is not the expected JSON is Unavailable; a 4xx is sorted by [`refusal`].
    async fn read<T: for<'de> Deserialize<'de>>(
        call: &str,
        sent: Result<reqwest::Response, reqwest::Error>,
    ) -> Result<T, FedError> {
        let res = sent.map_err(|e| unavailable(call, e))?;
        let status = res.status();
        if status.is_client_error() {
            let body: ErrorBody = res.json().await.unwrap_or_default();
            return Err(refusal(call, status.as_u16(), &body));
        }
        if !status.is_success() {
            return Err(unavailable(call, format!("answered {status}")));
        }
        res.json().await.map_err(|e| unavailable(call, e))
    }

    /// The callback's code → the person: the user token, the organization check (with a
    /// required organization), then `users/me`. No code, or `error=…`, is the person declining.
    /// Calls: 2.
    pub async fn identify(&self, cb: &Callback) -> Result<DingtalkPerson, FedError> {
        let Some(code) = cb.code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(FedError::Cancelled);
        };
        let s = &self.settings;
        let secret = s.client_secret.as_deref().ok_or_else(|| {
            FedError::Misconfigured("dingtalk: the client secret is not in this function".into())
        })?;
        let url = Self::endpoint(&s.api_base, "/v1.0/oauth2/userAccessToken")?;
        let body = serde_json::json!({
            "clientId": s.client_id,
            "clientSecret": secret,
            "code": code,
            "grantType": "authorization_code",
        });
        let sent = client()
            .post(url)
            .timeout(call_timeout(s.call_timeout, "dingtalk")?)
            .json(&body)
            .send()
            .await;
        let token: TokenAnswer = Self::read("userAccessToken", sent).await?;
        let Some(access_token) = token.access_token.filter(|t| !t.is_empty()) else {
            return Err(unavailable("userAccessToken", "no accessToken"));
        };
        if let Some(want) = &s.corp_id {
            if token.corp_id.as_deref() != Some(want.as_str()) {
                return Err(FedError::NotPermitted(format!(
                    "dingtalk: not permitted: the token is for organization {:?}, not {want}",
                    token.corp_id
                )));
            }
        }
        let url = Self::endpoint(&s.api_base, "/v1.0/contact/users/me")?;
        let sent = client()
            .get(url)
            .timeout(call_timeout(s.call_timeout, "dingtalk")?)
            .header("x-acs-dingtalk-access-token", &access_token)
            .send()
            .await;
        let me: Me = Self::read("users/me", sent).await?;
        let Some(union_id) = me.union_id.filter(|u| !u.is_empty()) else {
            return Err(unavailable("users/me", "no unionId"));
        };
        let mobile = me.mobile.filter(|m| !m.is_empty()).map(|m| {
            match me.state_code.as_deref().filter(|c| !c.is_empty()) {
                Some(cc) => format!("+{cc} {m}"),
                None => m,
            }
        });
        let mail = me.email.filter(|m| !m.is_empty());
        Ok(DingtalkPerson {
            identity: ExternalIdentity {
                subject: union_id,
                app_subject: me
                    .open_id
                    .filter(|o| !o.is_empty())
                    .map(|o| (s.client_id.clone(), o)),
                // A mail the person typed: never declared verified.
                vouches: ciam_core::federation::Vouches {
                    mail: mail.map(|m| (m, false)),
                },
                name: me.nick.filter(|n| !n.is_empty()),
                ..ExternalIdentity::default()
            },
            corp_id: token.corp_id,
            mobile,
        })
    }
}

/// DingTalk as a federation provider (`adapter(ProviderId::Dingtalk)`).
pub struct DingtalkSignIn;

#[async_trait::async_trait]
impl SettingsAdapter for DingtalkSignIn {
    type Settings = DingtalkSettings;
    type Client = Dingtalk;
    const FACTS: &'static Facts = &DINGTALK;

    /// The settings of this process (`CIAM_DINGTALK_*`): None when DingTalk is off.
    fn settings(ciam: &Ciam) -> Option<DingtalkSettings> {
        let c = ciam.config.federation.get(&ProviderId::Dingtalk)?;
        let mut s = DingtalkSettings::new(c.setting("CLIENT_ID")?, DingtalkRegion::Mainland);
        s.client_secret = c.secret("clientSecret").map(str::to_owned);
        s.corp_id = c.setting("CORP_ID").map(str::to_owned);
        if let Some(base) = c.setting("LOGIN_BASE") {
            s.login_base = base.to_owned();
        }
        if let Some(base) = c.setting("API_BASE") {
            s.api_base = base.to_owned();
        }
        Some(s)
    }

    fn client(settings: DingtalkSettings) -> Result<Dingtalk, FedError> {
        Ok(Dingtalk::new(settings))
    }

    async fn start_url(
        dingtalk: Dingtalk,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        dingtalk.authorization_url(&redirect_uri(ciam, &DINGTALK), &started.state)
    }

    async fn read_callback(
        dingtalk: Dingtalk,
        _ciam: &Ciam,
        cb: &Callback,
        _pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        Ok(dingtalk.identify(cb).await?.identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(code: &str) -> ErrorBody {
        ErrorBody {
            code: code.into(),
            message: String::new(),
        }
    }

    /// The 4xx codes sort as §3.3 says, whatever their exact spelling (the names are
    /// [UNVERIFIED]): the code's, the client's, or DingTalk's trouble.
    #[test]
    fn error_codes_sort_into_code_setup_and_dingtalk_trouble() {
        for code in ["invalidAuthCode", "InvalidCode", "authCode.expired"] {
            let got = refusal("userAccessToken", 400, &body(code));
            assert!(matches!(got, FedError::CodeRefused(_)), "{code}: {got:?}");
        }
        for code in ["invalid.client", "invalidClientSecret"] {
            let got = refusal("userAccessToken", 400, &body(code));
            assert!(matches!(got, FedError::Misconfigured(_)), "{code}: {got:?}");
        }
        let got = refusal("users/me", 403, &body("Forbidden.AccessDenied"));
        assert!(matches!(got, FedError::Misconfigured(_)), "{got:?}");
        let got = refusal("userAccessToken", 429, &body("Throttling"));
        assert!(matches!(got, FedError::Unavailable(_)), "{got:?}");
    }

    #[test]
    fn the_regions_name_the_documented_hosts() {
        let cn = DingtalkSettings::new("ding1", DingtalkRegion::Mainland);
        assert_eq!(
            (cn.login_base.as_str(), cn.api_base.as_str()),
            ("https://login.dingtalk.com", "https://api.dingtalk.com")
        );
        let intl = DingtalkSettings::new("ding1", DingtalkRegion::International);
        assert_eq!(
            (intl.login_base.as_str(), intl.api_base.as_str()),
            ("https://login.dingtalk.io", "https://api.dingtalk.io")
        );
        assert_eq!(intl.call_timeout, Duration::from_secs(3));
    }
}
