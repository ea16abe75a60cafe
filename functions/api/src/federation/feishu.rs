//! Feishu (飞书) / Lark sign-in, the protocol part (docs/federation-design.md §3.4): Feishu's
//! current authorization (`accounts.feishu.cn/open-apis/authen/v1/authorize`, PKCE S256), the
//! code → the OAuth token endpoint (`open.feishu.cn/open-apis/authen/v2/oauth/token`, JSON,
//! RFC 6749 shape: open.feishu.cn get-user-access-token; or the v3 path the English page
//! announces, a setting until §6 question 1 is settled) → `open-apis/authen/v1/user_info`
//! (Bearer). Never the deprecated `passport.feishu.cn/suite/passport/oauth/*` flow nor the
//! historic `authen/v1/oidc/access_token`. The person is keyed on `union_id`; the per-app
//! `open_id` is kept beside it; the tenant is `tenant_key`. Lark (`*.larksuite.com`) is the
//! same protocol on other hosts and another user base: a setting ([`FeishuRegion`]), fixed per
//! deployment.
//!
//! [`FeishuSignIn`] is the `SettingsAdapter` (a `Provider` through `FromSettings`) of
//! `ProviderId::Feishu`: it builds a [`Feishu`] from the process's `CIAM_FEISHU_*` configuration on
//! each call; [`Feishu`]'s methods take what the trait gets from `Started` and `Pending` (the
//! redirect URI, the state, the PKCE challenge and verifier: core's flow makes them and the state
//! keeps the verifier, `Facts::pkce`; no nonce).

use super::{call_timeout, client, SettingsAdapter};
use ciam_core::federation::{
    redirect_uri, Callback, ExternalIdentity, Facts, FedError, Pending, ProviderId, Started,
    Surface, Vouches, FEISHU,
};
use ciam_core::staff::secure_url;
use ciam_core::Ciam;
use serde::Deserialize;
use std::time::Duration;

/// Which user base, and so which hosts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeishuRegion {
    /// 飞书: `accounts.feishu.cn`, `open.feishu.cn`.
    #[default]
    Feishu,
    /// Lark: `accounts.larksuite.com`, `open.larksuite.com`.
    Lark,
}

impl FeishuRegion {
    /// The `REGION` setting: `feishu` (or unset) or `lark`, in any case; None for anything else.
    pub fn parse(setting: Option<&str>) -> Option<FeishuRegion> {
        match setting.map(str::trim) {
            None | Some("") => Some(FeishuRegion::Feishu),
            Some(r) if r.eq_ignore_ascii_case("feishu") => Some(FeishuRegion::Feishu),
            Some(r) if r.eq_ignore_ascii_case("lark") => Some(FeishuRegion::Lark),
            Some(_) => None,
        }
    }

    /// (accounts base, open-platform base) of the region.
    pub fn bases(self) -> (&'static str, &'static str) {
        match self {
            FeishuRegion::Feishu => ("https://accounts.feishu.cn", "https://open.feishu.cn"),
            FeishuRegion::Lark => (
                "https://accounts.larksuite.com",
                "https://open.larksuite.com",
            ),
        }
    }
}

/// Which token endpoint the code is redeemed at (same JSON body and answer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FeishuToken {
    /// `<open base>/open-apis/authen/v2/oauth/token` (the Chinese page's current endpoint).
    #[default]
    V2,
    /// `<accounts base>/oauth/v3/token` (the English page's successor; PKCE enforced).
    V3,
}

/// The Feishu settings of a process (later `CIAM_FEISHU_*`, filled through its Facts).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeishuSettings {
    /// The app's App ID (`cli_…`); public, in the authorization URL.
    pub app_id: String,
    /// The app's App Secret: only the callback's function has it.
    pub app_secret: Option<String>,
    /// Scopes asked besides the basic profile (space separated; empty: none). Mail and phone
    /// need `contact:user.email:readonly`, `contact:user.phone:readonly`.
    pub scope: String,
    /// Where the browser goes (`accounts.feishu.cn`); tests point it at the fake.
    pub accounts_base: String,
    /// Where the callback calls (`open.feishu.cn`); tests point it at the fake.
    pub open_base: String,
    pub token: FeishuToken,
    /// Each HTTPS call to Feishu (§3.6: 3 s), so a hung platform fails the callback in time.
    pub call_timeout: Duration,
}

impl FeishuSettings {
    /// The settings of `app_id` on `region`'s hosts, without a secret.
    pub fn new(app_id: &str, region: FeishuRegion) -> FeishuSettings {
        let (accounts, open) = region.bases();
        FeishuSettings {
            app_id: app_id.to_owned(),
            app_secret: None,
            scope: String::new(),
            accounts_base: accounts.to_owned(),
            open_base: open.to_owned(),
            token: FeishuToken::V2,
            call_timeout: Duration::from_secs(3),
        }
    }
}

/// What Feishu says about the person besides the identity: the tenant and the phone, until
/// `ExternalIdentity` carries them (docs/federation-design.md §1.2 `tenant`, `vouches.phone`).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FeishuPerson {
    pub identity: ExternalIdentity,
    /// The person's tenant (`tenant_key`).
    pub tenant_key: Option<String>,
    /// The phone the tenant recorded (granted scope only); display and prefill only.
    pub mobile: Option<String>,
    /// The mailbox the tenant gave the person (`enterprise_email`), as distinct from the mail
    /// of the account: what an organization's connection may trust at its verified domains.
    pub enterprise_mail: Option<String>,
}

/// The token endpoint's answer, success or error (Feishu puts a numeric `code` in both).
#[derive(Debug, Default, Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    code: i64,
    error: Option<String>,
    error_description: Option<String>,
    access_token: Option<String>,
}

/// `user_info`'s envelope.
#[derive(Debug, Default, Deserialize)]
struct Envelope {
    #[serde(default)]
    code: i64,
    #[serde(default)]
    msg: String,
    data: Option<UserInfo>,
}

#[derive(Debug, Default, Deserialize)]
struct UserInfo {
    union_id: Option<String>,
    open_id: Option<String>,
    tenant_key: Option<String>,
    name: Option<String>,
    email: Option<String>,
    enterprise_email: Option<String>,
    mobile: Option<String>,
}

/// The person is outside the app's availability (documented on get-user-access-token).
pub const NOT_AVAILABLE: i64 = 20010;

/// A refused token request sorted as §3.4 says: keyed on the OAuth `error`, not on the
/// numbers (only 20010 is documented): `invalid_grant` is the code's fault (unknown, used,
/// expired, or a PKCE verifier that does not match), 20010 the person's availability, a client
/// or request error Ciam's set-up; anything else Feishu's trouble.
fn refusal(answer: &TokenAnswer, status: u16) -> FedError {
    let error = answer.error.as_deref().unwrap_or("");
    let cause = format!(
        "feishu token: HTTP {status} code {} {error} {}",
        answer.code,
        answer.error_description.as_deref().unwrap_or("")
    );
    if answer.code == NOT_AVAILABLE {
        return FedError::NotPermitted(format!("not permitted: {cause}"));
    }
    match error {
        "invalid_grant" => FedError::CodeRefused(cause),
        "invalid_client"
        | "unauthorized_client"
        | "invalid_request"
        | "unsupported_grant_type"
        | "invalid_scope" => FedError::Misconfigured(cause),
        _ => FedError::Unavailable(cause),
    }
}

fn unavailable(call: &str, cause: impl std::fmt::Display) -> FedError {
    FedError::Unavailable(format!("feishu {call}: {cause}"))
}

/// The Feishu/Lark adapter over its settings.
#[derive(Clone, Debug)]
pub struct Feishu {
    pub settings: FeishuSettings,
}

impl Feishu {
    pub fn new(settings: FeishuSettings) -> Feishu {
        Feishu { settings }
    }

    /// `base` + `path`, when the base is https (http only on loopback, for the fakes).
    fn endpoint(base: &str, path: &str) -> Result<url::Url, FedError> {
        if !secure_url(base) {
            return Err(FedError::Misconfigured(format!(
                "feishu: {base} is not an https URL"
            )));
        }
        url::Url::parse(&format!("{}{path}", base.trim_end_matches('/')))
            .map_err(|e| FedError::Misconfigured(format!("feishu: {base}: {e}")))
    }

    /// Where the browser goes: the authorization page with the PKCE challenge (S256) of the
    /// verifier the state keeps.
    pub fn authorization_url(
        &self,
        redirect_uri: &str,
        state: &str,
        code_challenge: &str,
    ) -> Result<String, FedError> {
        let s = &self.settings;
        let mut url = Self::endpoint(&s.accounts_base, "/open-apis/authen/v1/authorize")?;
        {
            let mut q = url.query_pairs_mut();
            q.append_pair("client_id", &s.app_id)
                .append_pair("response_type", "code")
                .append_pair("redirect_uri", redirect_uri);
            if !s.scope.is_empty() {
                q.append_pair("scope", &s.scope);
            }
            q.append_pair("state", state)
                .append_pair("code_challenge", code_challenge)
                .append_pair("code_challenge_method", "S256");
        }
        Ok(url.into())
    }

    fn token_url(&self) -> Result<url::Url, FedError> {
        let s = &self.settings;
        match s.token {
            FeishuToken::V2 => Self::endpoint(&s.open_base, "/open-apis/authen/v2/oauth/token"),
            FeishuToken::V3 => Self::endpoint(&s.accounts_base, "/oauth/v3/token"),
        }
    }

    /// The callback's code → the person: the token (with the redirect URI and the PKCE
    /// verifier), then `user_info`. No code, or `error=…`, is the person declining. Calls: 2.
    pub async fn identify(
        &self,
        cb: &Callback,
        redirect_uri: &str,
        code_verifier: &str,
    ) -> Result<FeishuPerson, FedError> {
        let Some(code) = cb.code.as_deref().filter(|c| !c.is_empty()) else {
            return Err(FedError::Cancelled);
        };
        let s = &self.settings;
        let secret = s.app_secret.as_deref().ok_or_else(|| {
            FedError::Misconfigured("feishu: the app secret is not in this function".into())
        })?;
        let mut body = serde_json::json!({
            "grant_type": "authorization_code",
            "client_id": s.app_id,
            "client_secret": secret,
            "code": code,
            "redirect_uri": redirect_uri,
        });
        // A state without a verifier sends none: Feishu refuses the challenged code.
        if !code_verifier.is_empty() {
            body["code_verifier"] = serde_json::Value::from(code_verifier);
        }
        let res = client()
            .post(self.token_url()?)
            .timeout(call_timeout(s.call_timeout, "feishu")?)
            .json(&body)
            .send()
            .await
            .map_err(|e| unavailable("token", e))?;
        let status = res.status();
        if status.is_server_error() {
            return Err(unavailable("token", format!("answered {status}")));
        }
        let answer: TokenAnswer = res.json().await.map_err(|e| unavailable("token", e))?;
        if !status.is_success() || answer.code != 0 || answer.error.is_some() {
            return Err(refusal(&answer, status.as_u16()));
        }
        let Some(access_token) = answer.access_token.filter(|t| !t.is_empty()) else {
            return Err(unavailable("token", "no access_token"));
        };
        self.user_info(&access_token).await
    }

    /// The person the fresh token names. A refusal of a token Feishu just issued is Feishu's
    /// trouble, not the person's.
    async fn user_info(&self, access_token: &str) -> Result<FeishuPerson, FedError> {
        let s = &self.settings;
        let url = Self::endpoint(&s.open_base, "/open-apis/authen/v1/user_info")?;
        let res = client()
            .get(url)
            .timeout(call_timeout(s.call_timeout, "feishu")?)
            .bearer_auth(access_token)
            .send()
            .await
            .map_err(|e| unavailable("user_info", e))?;
        let status = res.status();
        let env: Envelope = if status.is_server_error() {
            return Err(unavailable("user_info", format!("answered {status}")));
        } else {
            res.json().await.map_err(|e| unavailable("user_info", e))?
        };
        if !status.is_success() || env.code != 0 {
            return Err(unavailable(
                "user_info",
                format!("HTTP {status} code {} {}", env.code, env.msg),
            ));
        }
        let info = env.data.unwrap_or_default();
        let Some(union_id) = info.union_id.filter(|u| !u.is_empty()) else {
            return Err(unavailable("user_info", "no union_id"));
        };
        let some = |v: Option<String>| v.filter(|x| !x.is_empty());
        let enterprise_mail = some(info.enterprise_email);
        let mail = enterprise_mail.clone().or(some(info.email));
        Ok(FeishuPerson {
            identity: ExternalIdentity {
                subject: union_id,
                app_subject: some(info.open_id).map(|o| (s.app_id.clone(), o)),
                // The tenant's record, not a proof the person controls it.
                vouches: Vouches {
                    mail: mail.map(|m| (m, false)),
                },
                name: some(info.name),
                ..ExternalIdentity::default()
            },
            tenant_key: some(info.tenant_key),
            mobile: some(info.mobile),
            enterprise_mail,
        })
    }
}

/// Feishu (or Lark) as a federation provider (`adapter(ProviderId::Feishu)`).
pub struct FeishuSignIn;

impl FeishuSignIn {
    /// Lark when this deployment's `REGION` says so (the sign-in page names the button after
    /// it), else None.
    pub fn region(ciam: &Ciam) -> Option<FeishuRegion> {
        let c = ciam.config.federation.get(&ProviderId::Feishu)?;
        FeishuRegion::parse(c.setting("REGION"))
    }
}

#[async_trait::async_trait]
impl SettingsAdapter for FeishuSignIn {
    type Settings = Result<FeishuSettings, FedError>;
    type Client = Feishu;
    const FACTS: &'static Facts = &FEISHU;

    /// The settings of this process (`CIAM_FEISHU_*`): None when Feishu is off; an unknown
    /// `REGION` is Ciam's set-up error (SERVICE_UNAVAILABLE, logged), never a guess.
    fn settings(ciam: &Ciam) -> Option<Result<FeishuSettings, FedError>> {
        let c = ciam.config.federation.get(&ProviderId::Feishu)?;
        let app_id = c.setting("APP_ID")?;
        let Some(region) = FeishuRegion::parse(c.setting("REGION")) else {
            return Some(Err(FedError::Misconfigured(format!(
                "feishu: CIAM_FEISHU_REGION is {:?}, not feishu or lark",
                c.setting("REGION").unwrap_or("")
            ))));
        };
        let mut s = FeishuSettings::new(app_id, region);
        s.app_secret = c.secret("appSecret").map(str::to_owned);
        if let Some(base) = c.setting("ACCOUNTS_BASE") {
            s.accounts_base = base.to_owned();
        }
        if let Some(base) = c.setting("OPEN_BASE") {
            s.open_base = base.to_owned();
        }
        Some(Ok(s))
    }

    fn client(settings: Result<FeishuSettings, FedError>) -> Result<Feishu, FedError> {
        settings.map(Feishu::new)
    }

    fn brand(ciam: &Ciam) -> Option<&'static str> {
        (Self::region(ciam) == Some(FeishuRegion::Lark)).then_some("lark")
    }

    async fn start_url(
        feishu: Feishu,
        ciam: &Ciam,
        started: &Started,
        _surface: Surface,
    ) -> Result<String, FedError> {
        let challenge = started
            .code_challenge
            .as_deref()
            .ok_or_else(|| FedError::Misconfigured("feishu: the state has no verifier".into()))?;
        feishu.authorization_url(&redirect_uri(ciam, &FEISHU), &started.state, challenge)
    }

    async fn read_callback(
        feishu: Feishu,
        ciam: &Ciam,
        cb: &Callback,
        pending: &Pending,
    ) -> Result<ExternalIdentity, FedError> {
        let verifier = pending.verifier.as_deref().unwrap_or("");
        let person = feishu
            .identify(cb, &redirect_uri(ciam, &FEISHU), verifier)
            .await?;
        Ok(person.identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answer(code: i64, error: &str) -> TokenAnswer {
        TokenAnswer {
            code,
            error: Some(error.into()),
            ..TokenAnswer::default()
        }
    }

    /// Keyed on `error`, whatever the (undocumented) number: §6 question 5.
    #[test]
    fn token_errors_sort_on_the_oauth_error() {
        for code in [20003, 20004, 20007, 1007, 0] {
            let got = refusal(&answer(code, "invalid_grant"), 400);
            assert!(matches!(got, FedError::CodeRefused(_)), "{code}: {got:?}");
        }
        let got = refusal(&answer(20010, "access_denied"), 400);
        assert!(
            matches!(&got, FedError::NotPermitted(c) if c.starts_with("not permitted")),
            "{got:?}"
        );
        for error in [
            "invalid_client",
            "invalid_request",
            "unsupported_grant_type",
        ] {
            let got = refusal(&answer(20002, error), 401);
            assert!(
                matches!(got, FedError::Misconfigured(_)),
                "{error}: {got:?}"
            );
        }
        let got = refusal(&answer(20050, "server_error"), 400);
        assert!(matches!(got, FedError::Unavailable(_)), "{got:?}");
    }

    #[test]
    fn the_regions_name_the_documented_hosts() {
        let f = FeishuSettings::new("cli_1", FeishuRegion::Feishu);
        assert_eq!(
            (f.accounts_base.as_str(), f.open_base.as_str()),
            ("https://accounts.feishu.cn", "https://open.feishu.cn")
        );
        let l = FeishuSettings::new("cli_1", FeishuRegion::Lark);
        assert_eq!(
            (l.accounts_base.as_str(), l.open_base.as_str()),
            (
                "https://accounts.larksuite.com",
                "https://open.larksuite.com"
            )
        );
        assert_eq!(l.token, FeishuToken::V2);
    }

    #[test]
    fn the_region_setting_is_feishu_lark_or_refused() {
        assert_eq!(FeishuRegion::parse(None), Some(FeishuRegion::Feishu));
        assert_eq!(FeishuRegion::parse(Some(" ")), Some(FeishuRegion::Feishu));
        assert_eq!(
            FeishuRegion::parse(Some("feishu")),
            Some(FeishuRegion::Feishu)
        );
        assert_eq!(FeishuRegion::parse(Some("Lark")), Some(FeishuRegion::Lark));
        assert_eq!(FeishuRegion::parse(Some("larksuite")), None);
        let lark = Feishu::new(FeishuSettings::new("cli_1", FeishuRegion::Lark));
        assert_eq!(
            lark.token_url().unwrap().as_str(),
            "https://open.larksuite.com/open-apis/authen/v2/oauth/token"
        );
    }
}
