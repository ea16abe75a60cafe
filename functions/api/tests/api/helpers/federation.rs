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
