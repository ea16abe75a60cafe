//! What the federation tests share (functions/api/tests/api/federation_*.rs): the local
//! platforms (ciam-fakes), the test's own browser that does not follow redirects, a navigation
//! to the router and the query of the page it lands on, and the link a subject has.

use super::TestApp;
use axum::body::Body;
use axum::http::{header, Method, Request};
use ciam_fakes::Fakes;
use ciam_store::{Key, Store};
use http_body_util::BodyExt;
use serde_json::json;
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

/// A desktop browser's User-Agent.
pub const DESKTOP: &str = "Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0";

/// One browser: its random `bind` (kept since the start) and its User-Agent.
pub struct Browser {
    pub bind: String,
    pub ua: &'static str,
}

impl Browser {
    /// A desktop browser named `name` (its bind says so).
    pub fn new(name: &str) -> Browser {
        Browser {
            bind: format!("{name}-bind-0123456789abcdef0123456789abcdef"),
            ua: DESKTOP,
        }
    }
}

/// A parameter of the sign-in page a redirect lands on (either language).
pub fn signin_param(location: &str, name: &str) -> Option<String> {
    assert!(
        location.starts_with("/en-US/passport/signin?")
            || location.starts_with("/zh-CN/passport/signin?"),
        "{location}"
    );
    query_param(location, name)
}

/// A provider wired to its platform's fake through its real rows: the browser starts at
/// `/auth/<p>/start`, the fake at `at` (the platform's prefix: `fakes.url(platform)`, or Lark's)
/// approves as its next person and redirects back, the callback answers `<p>Code`, `<p>Pending`
/// or `<p>Error`; then the shared API calls.
pub struct WiredProvider {
    pub provider: ciam_core::federation::ProviderId,
    pub platform: ciam_fakes::Platform,
    /// Where the start must send the browser (the fake's prefix for this configuration).
    pub at: String,
    pub fakes: Fakes,
    pub app: TestApp,
}

impl WiredProvider {
    /// `app` with `provider` configured as `config`, its browser sent to `at` on `fakes`.
    pub fn new(
        app: TestApp,
        fakes: Fakes,
        provider: ciam_core::federation::ProviderId,
        platform: ciam_fakes::Platform,
        at: String,
        config: ciam_core::federation::ProviderConfig,
    ) -> WiredProvider {
        let app = app.configure(move |c| {
            c.federation.insert(provider, config);
        });
        WiredProvider {
            provider,
            platform,
            at,
            fakes,
            app,
        }
    }

    pub fn name(&self) -> &'static str {
        self.provider.name()
    }

    /// The person who approves at the platform from now on.
    pub fn person(&self, person: ciam_fakes::Person) {
        self.fakes.state(self.platform).set_person(person);
    }

    /// [`Self::person`] with just a union id.
    pub fn someone(&self, unionid: &str) {
        self.person(ciam_fakes::Person {
            unionid: unionid.into(),
            ..ciam_fakes::Person::default()
        });
    }

    /// The start's redirect: the platform's authorization URL, or back to the SPA.
    pub async fn start(&self, browser: &Browser) -> String {
        let start = format!(
            "/ciam/v1/auth/{}/start?lang=en-US&query=appId%3Dx&bindHash={}",
            self.name(),
            ciam_core::staff::bind_hash(&browser.bind)
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

    /// The browser back at Ciam's callback: where it is sent.
    pub async fn callback(&self, callback: &str) -> String {
        navigate_as(&self.app, callback, Some(DESKTOP)).await
    }

    /// The whole round trip: where the callback sent the browser (the query kept).
    pub async fn round_trip(&self, browser: &Browser) -> String {
        let callback = self.to_platform(browser).await;
        let location = self.callback(&callback).await;
        assert_eq!(
            signin_param(&location, "appId").as_deref(),
            Some("x"),
            "{location}"
        );
        location
    }

    /// The `<p><what>` of a round trip.
    pub async fn outcome(&self, browser: &Browser, what: &str) -> String {
        let location = self.round_trip(browser).await;
        let name = format!("{}{what}", self.name());
        signin_param(&location, &name).unwrap_or_else(|| panic!("no {name}: {location}"))
    }

    pub async fn pending(&self, browser: &Browser) -> String {
        self.outcome(browser, "Pending").await
    }

    pub async fn login_code(&self, browser: &Browser) -> String {
        self.outcome(browser, "Code").await
    }

    /// The `<p>Error` of the page `location`.
    pub fn error_of(&self, location: &str) -> Option<String> {
        signin_param(location, &format!("{}Error", self.name()))
    }

    /// POST /auth/federation/phone.
    pub async fn prove(
        &self,
        token: &str,
        browser: &Browser,
        phone: &str,
        code: &str,
    ) -> super::TestResponse {
        let body = json!({ "pending": token, "bind": browser.bind, "phone": phone, "code": code });
        self.app
            .send_json(Method::POST, "/auth/federation/phone", None, &body)
            .await
    }

    /// POST /auth/federation/register.
    pub async fn register(
        &self,
        token: &str,
        browser: &Browser,
        user_name: &str,
    ) -> super::TestResponse {
        let body = json!({ "pending": token, "bind": browser.bind, "userName": user_name,
            "company": "Acme Industrial", "country": "CN", "acceptTerms": true });
        self.app
            .send_json(Method::POST, "/auth/federation/register", None, &body)
            .await
    }

    /// POST /auth/login/federation.
    pub async fn redeem(&self, code: &str, browser: &Browser) -> super::TestResponse {
        let body = json!({ "provider": self.name(), "code": code, "bind": browser.bind });
        self.app
            .send_json(Method::POST, "/auth/login/federation", None, &body)
            .await
    }

    /// The account the provider's `subject` is linked to.
    pub async fn link_of(&self, subject: &str) -> Option<String> {
        link_of(&self.app, self.name(), subject).await
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

    /// The protocol requests the platform's fake served at `path`.
    pub fn calls(&self, path: &str) -> u64 {
        self.fakes.state(self.platform).calls(path)
    }
}
