//! What the federation tests share (functions/api/tests/api/federation_*.rs): the local
//! platforms (ciam-fakes), the test's own browser that does not follow redirects, a navigation
//! to the router and the query of the page it lands on, and the link a subject has; and for
//! the journeys through the real rows (federation_journeys.rs, federation_wecom_journeys.rs) a
//! [`Browser`] and a provider [`Wired`] to its fake.

use super::{TestApp, TestResponse};
use axum::body::Body;
use axum::http::{header, Method, Request};
use ciam_core::federation::ProviderId;
use ciam_core::staff::bind_hash;
use ciam_fakes::{Fakes, Person, Platform};
use ciam_store::{Key, Store};
use http_body_util::BodyExt;
use serde_json::{json, Value};
use tower::ServiceExt;

/// The local platforms, in process.
pub async fn fakes() -> Fakes {
    // The test's own browser is reqwest too, built before the adapters' client installs the
    // crypto provider.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    ciam_fakes::spawn().await.expect("fakes")
}

/// The test-only mock platform's base URL on `fakes`.
pub fn mock_base(fakes: &Fakes) -> String {
    format!("{}/mock", fakes.base_url)
}

/// `app` with the test-only mock provider pointed at `fakes`.
pub async fn with_mock(app: TestApp, fakes: &Fakes) -> TestApp {
    let base = mock_base(fakes);
    app.configure(move |c| c.mock_provider = Some(base))
}

/// The test's browser at the platforms: it sees each redirect.
pub fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("client")
}

/// The person who approves at the mock platform from now on.
pub async fn next_person(fakes: &Fakes, subject: &str) {
    let res = no_redirects()
        .post(format!("{}/_control/next-user", mock_base(fakes)))
        .json(&json!({ "unionid": subject, "nickname": "Zhang" }))
        .send()
        .await
        .expect("control");
    assert_eq!(res.status(), 200);
}

/// A navigation to the router (not an API call) from a browser saying `ua`, when given: the
/// redirect's target.
pub async fn navigate_as(app: &TestApp, uri: &str, ua: Option<&str>) -> String {
    let mut req = Request::builder().method(Method::GET).uri(uri);
    if let Some(ua) = ua {
        req = req.header(header::USER_AGENT, ua);
    }
    let res = ciam_api::router(app.ciam.clone())
        .oneshot(req.body(Body::empty()).expect("request"))
        .await
        .expect("infallible");
    assert_eq!(res.status(), 302, "{uri}");
    let to = res.headers()["location"]
        .to_str()
        .expect("location")
        .to_owned();
    let _ = res.into_body().collect().await;
    to
}

/// [`navigate_as`] without a User-Agent.
pub async fn navigate(app: &TestApp, uri: &str) -> String {
    navigate_as(app, uri, None).await
}

/// The query of the page a redirect lands on (`/en-US/passport/signin?...`).
pub fn query_params(location: &str) -> Vec<(String, String)> {
    url::Url::parse(&format!("http://spa{location}"))
        .expect("url")
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

/// One parameter of [`query_params`].
pub fn query_param(location: &str, name: &str) -> Option<String> {
    query_params(location)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

/// The account `provider`'s `subject` is linked to, if any.
pub async fn link_of(app: &TestApp, provider: &str, subject: &str) -> Option<String> {
    let key = Key::new(format!("FEDID#{provider}#{subject}"), "LINK");
    app.store
        .get(&key)
        .await
        .expect("get")
        .and_then(|i| i.s("userId").map(str::to_owned))
}

/// The security activity of `token`'s account: (kind, name) of each entry, newest first.
pub async fn activity_kinds(app: &TestApp, token: &str) -> Vec<(String, Option<String>)> {
    app.get_activity(token).await.ok(200)["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| {
            (
                e["kind"].as_str().unwrap_or_default().to_owned(),
                e["name"].as_str().map(str::to_owned),
            )
        })
        .collect()
}

/// The last notice of a change the dev outbox holds.
pub fn last_notice(app: &TestApp) -> Option<ciam_core::notifier::Notice> {
    app.outbox.notices().last().map(|n| n.notice.clone())
}

// ---- the journeys' browser and a provider wired to its fake ----

pub const IN_WECHAT: &str =
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like \
                         Gecko) Chrome/120.0 Mobile Safari/537.36 MicroMessenger/8.0.47.2560 \
                         NetType/WIFI Language/zh_CN";
/// WeCom's own browser: `wxwork`, and `MicroMessenger` too.
pub const IN_WECOM: &str = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) \
                            AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 wxwork/4.1.22 \
                            MicroMessenger/7.0.1 Language/zh";
pub const DESKTOP: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// One browser: its random `bind` (kept since the start) and its User-Agent.
pub struct Browser {
    pub bind: String,
    pub ua: &'static str,
}

impl Browser {
    pub fn new(name: &str) -> Browser {
        Browser {
            bind: format!("{name}-bind-0123456789abcdef0123456789abcdef"),
            ua: DESKTOP,
        }
    }

    pub fn in_wechat(name: &str) -> Browser {
        Browser {
            ua: IN_WECHAT,
            ..Browser::new(name)
        }
    }

    pub fn in_wecom(name: &str) -> Browser {
        Browser {
            ua: IN_WECOM,
            ..Browser::new(name)
        }
    }
}

/// A provider wired to its fake: its id, the platform standing in for it, the app configured.
pub struct Wired {
    pub provider: ProviderId,
    pub platform: Platform,
    /// Where the start must send the browser (the fake's prefix for this configuration:
    /// `fakes.url(platform)`, or Lark's).
    pub at: String,
    pub fakes: Fakes,
    pub app: TestApp,
}

/// The sign-in screen's parameters: in the state's language (`en-US` here), or the request's
/// (`zh-CN`) when the state is unknown.
pub fn params(location: &str) -> Vec<(String, String)> {
    assert!(
        location.starts_with("/en-US/passport/signin?")
            || location.starts_with("/zh-CN/passport/signin?"),
        "{location}"
    );
    query_params(location)
}

pub fn param(location: &str, name: &str) -> Option<String> {
    params(location)
        .into_iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v)
}

pub async fn post(app: &TestApp, p: &str, body: &Value) -> TestResponse {
    app.send_json(Method::POST, p, None, body).await
}

impl Wired {
    /// `app` with `provider` configured as `config`, its browser sent to `at` on `fakes`.
    pub fn new(
        app: TestApp,
        fakes: Fakes,
        provider: ProviderId,
        platform: Platform,
        at: String,
        config: ciam_core::federation::ProviderConfig,
    ) -> Wired {
        let app = app.configure(move |c| {
            c.federation.insert(provider, config);
        });
        Wired {
            provider,
            platform,
            at,
            fakes,
            app,
        }
    }

    /// [`Wired::new`] at the fake's own prefix of `platform`.
    pub fn at_fake(
        app: TestApp,
        fakes: Fakes,
        provider: ProviderId,
        platform: Platform,
        config: ciam_core::federation::ProviderConfig,
    ) -> Wired {
        let at = fakes.url(platform);
        Wired::new(app, fakes, provider, platform, at, config)
    }

    pub fn name(&self) -> &'static str {
        self.provider.name()
    }

    pub fn person(&self, person: Person) {
        self.fakes.state(self.platform).set_person(person);
    }

    /// The person `id` approves from now on: the platform's id for them (WeChat's, DingTalk's
    /// unionid; WeCom's userid).
    pub fn someone(&self, id: &str) {
        self.person(Person {
            unionid: id.into(),
            userid: id.into(),
            ..Person::default()
        });
    }

    /// The subject the provider names [`Wired::someone`]'s `id` by: WeCom's is
    /// `<corpid>/<userid>`.
    pub fn subject(&self, id: &str) -> String {
        match self.platform {
            Platform::Wecom => format!("{}/{id}", ciam_fakes::wecom::CORP_ID),
            _ => id.to_owned(),
        }
    }

    /// The start's redirect: the platform's authorization URL, or back to the SPA.
    pub async fn start(&self, browser: &Browser) -> String {
        let start = format!(
            "/ciam/v1/auth/{}/start?lang=en-US&query=appId%3Dx&bindHash={}",
            self.name(),
            bind_hash(&browser.bind)
        );
        navigate_as(&self.app, &start, Some(browser.ua)).await
    }

    /// The browser at the platform, which approves: the callback URI (path and query).
    pub async fn to_platform(&self, browser: &Browser) -> String {
        let at_platform = self.start(browser).await;
        self.approve(&at_platform).await
    }

    /// The browser at the platform's authorization URL `at_platform`, which approves: the
    /// callback URI (path and query).
    pub async fn approve(&self, at_platform: &str) -> String {
        assert!(at_platform.starts_with(&self.at), "{at_platform}");
        let res = no_redirects()
            .get(at_platform)
            .send()
            .await
            .expect("platform");
        assert_eq!(res.status(), 302, "{at_platform}");
        let back = url::Url::parse(res.headers()["location"].to_str().expect("location"))
            .expect("absolute");
        assert_eq!(
            back.path(),
            format!("/ciam/v1/auth/{}/callback", self.name())
        );
        format!("{}?{}", back.path(), back.query().unwrap_or(""))
    }

    pub async fn callback(&self, callback: &str) -> String {
        let location = navigate_as(&self.app, callback, Some(DESKTOP)).await;
        location
    }

    /// The whole round trip: where the callback sent the browser.
    pub async fn round_trip(&self, browser: &Browser) -> String {
        let callback = self.to_platform(browser).await;
        let location = self.callback(&callback).await;
        assert_eq!(
            param(&location, "appId").as_deref(),
            Some("x"),
            "{location}"
        );
        location
    }

    pub async fn outcome(&self, browser: &Browser, what: &str) -> String {
        let location = self.round_trip(browser).await;
        let name = format!("{}{what}", self.name());
        param(&location, &name).unwrap_or_else(|| panic!("no {name}: {location}"))
    }

    pub async fn pending(&self, browser: &Browser) -> String {
        self.outcome(browser, "Pending").await
    }

    pub async fn login_code(&self, browser: &Browser) -> String {
        self.outcome(browser, "Code").await
    }

    pub fn error_of(&self, location: &str) -> Option<String> {
        param(location, &format!("{}Error", self.name()))
    }

    pub async fn prove(
        &self,
        token: &str,
        browser: &Browser,
        phone: &str,
        code: &str,
    ) -> TestResponse {
        let body = json!({ "pending": token, "bind": browser.bind, "phone": phone, "code": code });
        post(&self.app, "/auth/federation/phone", &body).await
    }

    pub async fn register(&self, token: &str, browser: &Browser, user_name: &str) -> TestResponse {
        let body = json!({ "pending": token, "bind": browser.bind, "userName": user_name,
            "company": "Acme Industrial", "country": "CN", "acceptTerms": true });
        post(&self.app, "/auth/federation/register", &body).await
    }

    pub async fn redeem(&self, code: &str, browser: &Browser) -> TestResponse {
        let body = json!({ "provider": self.name(), "code": code, "bind": browser.bind });
        post(&self.app, "/auth/login/federation", &body).await
    }

    /// The account [`Wired::someone`]'s `id` is linked to.
    pub async fn link_of(&self, id: &str) -> Option<String> {
        link_of(&self.app, self.name(), &self.subject(id)).await
    }

    /// The keys under `pk_prefix` written so far.
    pub fn written(&self, pk_prefix: &str) -> Vec<Key> {
        self.app
            .store
            .written()
            .into_iter()
            .filter(|k| k.pk.starts_with(pk_prefix))
            .collect()
    }

    pub fn calls(&self, path: &str) -> u64 {
        self.fakes.state(self.platform).calls(path)
    }
}

/// The platform down (5xx) or hanging, for each wired provider: the callback answers
/// SERVICE_UNAVAILABLE, a hang within the call's 3 s deadline, and no pending sign-in is
/// written.
pub async fn down_or_hanging_is_service_unavailable_in_time(w: &Wired, id: &str) {
    w.someone(id);
    let browser = Browser::new("down");
    let callback = w.to_platform(&browser).await;
    w.fakes.state(w.platform).set_down(Some(502));
    let location = w.callback(&callback).await;
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("SERVICE_UNAVAILABLE")
    );
    w.fakes.state(w.platform).set_down(None);
    let callback = w.to_platform(&browser).await;
    w.fakes.state(w.platform).set_slow(10_000);
    let began = std::time::Instant::now();
    let location = w.callback(&callback).await;
    let took = began.elapsed();
    assert_eq!(
        w.error_of(&location).as_deref(),
        Some("SERVICE_UNAVAILABLE")
    );
    assert!(took < std::time::Duration::from_secs(5), "{took:?}");
    assert!(took >= std::time::Duration::from_secs(3), "{took:?}");
    assert_eq!(w.written("FEDPEND#").len(), 0);
}

/// `ann` signed up at `phone` and linked to the platform's person `id` (the phone proved with a
/// link code): the browser that did it.
pub async fn linked_ann(w: &Wired, id: &str, phone: &str) -> Browser {
    w.app.sign_up("ann", phone).await;
    w.someone(id);
    let browser = Browser::new("trips");
    let token = w.pending(&browser).await;
    let code = w.app.fresh_code(phone, "link").await;
    w.prove(&token, &browser, phone, &code).await.ok(200);
    browser
}

/// The store calls of one sign-in through the link (docs/cost.md "Federated sign-in"): at the
/// start, the callback and the redemption.
pub async fn sign_in_calls(w: &Wired, browser: &Browser) -> (usize, usize, usize) {
    let _ = w.app.store.take_calls();
    let callback = w.to_platform(browser).await;
    let start = w.app.store.take_calls().len();
    let location = w.callback(&callback).await;
    let back = w.app.store.take_calls().len();
    let code = param(&location, &format!("{}Code", w.name())).expect("code");
    w.redeem(&code, browser).await.ok(200);
    (start, back, w.app.store.take_calls().len())
}
