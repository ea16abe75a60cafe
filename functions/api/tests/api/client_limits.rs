//! The mainland China cell's per-client limits (issue 32 item 2; `Config::client_limits`,
//! ciam_core::client_limits): the web ACL's rules and limits, counted in the table per IPv4
//! address and per IPv6 /64, one conditional write per request, a 5-minute window that expires,
//! and the web ACL's answer (429 VERIFYCODE_SENDING_TOO_QUICKLY) with Retry-After. On SQLite and
//! on DynamoDB Local. Off by default: the global cell's requests do not touch the counter.

use crate::helpers::{request, TestApp, TestResponse, START};
use axum::body::Body;
use axum::http::Method;
use ciam_api::Waf;
use ciam_store::dynamo_local::DynamoLocal;
use std::sync::Arc;

/// The app with its limits on, and its router: called directly, not through the suite's
/// contract check, because docs/openapi.json does not list the 429 of the limits (the web ACL's
/// in the global cell, this counter's in the cn cell) on each operation.
struct Limited {
    app: TestApp,
    router: axum::Router,
}

fn limited(app: TestApp) -> Limited {
    let app = app.configure(|c| c.client_limits = true);
    let router = ciam_api::router(app.ciam.clone());
    Limited { app, router }
}

/// A GET of `p` from the viewer `addr` (`ip:port`, as CloudFront writes it).
async fn get_from(l: &Limited, p: &str, addr: &str) -> TestResponse {
    use http_body_util::BodyExt;
    use tower::ServiceExt;
    let req = request(Method::GET, p)
        .header("cloudfront-viewer-address", addr)
        .body(Body::empty())
        .expect("request");
    let res = l.router.clone().oneshot(req).await.expect("infallible");
    let (status, headers) = (res.status(), res.headers().clone());
    let bytes = res.into_body().collect().await.expect("body").to_bytes();
    TestResponse {
        status,
        headers,
        text: String::from_utf8_lossy(&bytes).into_owned(),
    }
}

/// Seconds from `now` to the end of its 5-minute window.
fn to_window_end(now: i64) -> i64 {
    300 - now.rem_euclid(300)
}

#[track_caller]
fn refused(res: &TestResponse, retry_after: i64) {
    res.error(429, "VERIFYCODE_SENDING_TOO_QUICKLY");
    assert_eq!(
        res.headers.get("retry-after").and_then(|v| v.to_str().ok()),
        Some(retry_after.to_string().as_str()),
        "Retry-After: the window's end"
    );
}

/// The captcha route's rule (`RateCaptcha`, 100 per client and window) per IPv6 /64 and per
/// IPv4 address, one write per request, the refusal, and the next window.
async fn per_address_and_per_64(app: Limited) {
    let limit = Waf::Captcha.limit().expect("a limit");
    assert_eq!(limit, 100);
    app.app.store.take_calls();
    // Two addresses of one /64 share its count.
    for i in 0..limit {
        let addr = format!("2001:db8:1:2::{:x}:443", i % 2 + 1);
        get_from(&app, "/auth/captcha", &addr).await.ok(200);
    }
    // One conditional write per request, nothing else (the captcha route has no store call).
    let calls = app.app.store.take_calls();
    assert_eq!(calls.len(), limit as usize, "{calls:?}");
    assert!(
        calls.iter().all(|c| *c == ("update_or_current", 1)),
        "{calls:?}"
    );
    // A third address of the /64 is over the limit.
    let res = get_from(&app, "/auth/captcha", "2001:db8:1:2:ffff::9:50000").await;
    refused(&res, to_window_end(START));
    assert_eq!(app.app.store.take_calls(), [("update_or_current", 1)]);
    // Another /64, an IPv4 address: their own counts.
    get_from(&app, "/auth/captcha", "2001:db8:1:3::1:443")
        .await
        .ok(200);
    get_from(&app, "/auth/captcha", "203.0.113.7:443")
        .await
        .ok(200);
    // A route without a rule of its own counts only under the blanket rule: still open.
    get_from(&app, "/auth/location", "2001:db8:1:2::1:443")
        .await
        .ok(200);
    // Within the window, still refused; from the next window on, admitted again.
    app.app.clock.advance(to_window_end(START) - 1);
    refused(
        &get_from(&app, "/auth/captcha", "2001:db8:1:2::1:443").await,
        1,
    );
    app.app.clock.advance(1);
    // What it costs: the counter item bills as one write unit (docs/cost.md).
    app.app.store.bill_writes();
    get_from(&app, "/auth/captcha", "2001:db8:1:2::1:443")
        .await
        .ok(200);
    let bill = app.app.store.take_bill();
    assert_eq!(bill.iter().map(|b| b.units).sum::<u64>(), 1, "{bill:?}");
}

/// 150 requests of one client at once: exactly the limit passes.
async fn a_race_never_passes_more_than_the_limit(app: Limited) {
    let answers = futures_util::future::join_all(
        (0..150).map(|_| get_from(&app, "/auth/captcha", "198.51.100.4:443")),
    )
    .await;
    let passed = answers.iter().filter(|r| r.status == 200).count();
    let refused = answers
        .iter()
        .filter(|r| r.status == 429 && r.reason() == "VERIFYCODE_SENDING_TOO_QUICKLY")
        .count();
    assert_eq!((passed, refused), (100, 50));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_limit_holds_per_address_and_per_64_and_its_window_expires() {
    per_address_and_per_64(limited(TestApp::spawn().await)).await;
    a_race_never_passes_more_than_the_limit(limited(TestApp::spawn().await)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_the_limit_holds_per_address_and_per_64_and_a_race_passes_only_the_limit() {
    let local = Arc::new(DynamoLocal::start().await);
    per_address_and_per_64(limited(TestApp::on_dynamo(&local, "limits").await)).await;
    a_race_never_passes_more_than_the_limit(limited(
        TestApp::on_dynamo(&local, "limits-race").await,
    ))
    .await;
}

/// The blanket rule (`RateCiamPerIp`, 6,000 per client and window) counts every route, with or
/// without a rule of its own.
#[tokio::test]
async fn the_blanket_limit_counts_every_route() {
    let app = limited(TestApp::spawn().await);
    let blanket = ciam_api::waf::BLANKET.limit;
    // Some under a route rule too (captcha), the rest under the blanket rule only (location).
    for i in 0..blanket {
        let p = if i < 50 {
            "/auth/captcha"
        } else {
            "/auth/location"
        };
        let res = get_from(&app, p, "192.0.2.1:443").await;
        assert_eq!(res.status, 200, "request {i}: {}", res.text);
    }
    for p in ["/auth/location", "/auth/captcha"] {
        refused(
            &get_from(&app, p, "192.0.2.1:443").await,
            to_window_end(START),
        );
    }
    get_from(&app, "/auth/location", "192.0.2.2:443")
        .await
        .ok(200);
}

/// Off (the global cell, the default): no counter, no refusal.
#[tokio::test]
async fn off_by_default_nothing_is_counted() {
    let app = TestApp::spawn().await;
    app.store.take_calls();
    for _ in 0..101 {
        let req = request(Method::GET, "/auth/captcha")
            .header("cloudfront-viewer-address", "203.0.113.7:443")
            .body(Body::empty())
            .expect("request");
        app.call(req).await.ok(200);
    }
    assert_eq!(app.store.take_calls(), []);
}

/// The embedded sign-in page (its own function in AWS) counts under the blanket rule too, as
/// the web ACL's `/{lang}/embedded/` scope does.
#[tokio::test]
async fn the_embedded_page_counts_under_the_blanket_rule() {
    use tower::ServiceExt;
    let app = TestApp::spawn().await.configure(|c| c.client_limits = true);
    let web: Arc<dyn ciam_core::BlobStore> = Arc::new(ciam_core::MemoryBlobs::default());
    let page = ciam_api::embedded::router(app.ciam.clone(), web);
    let get = |addr: &'static str| {
        axum::http::Request::get("/zh-CN/embedded/signin?serviceUrl=https://a.example.com/cb")
            .header("cloudfront-viewer-address", addr)
            .body(Body::empty())
            .expect("request")
    };
    for _ in 0..ciam_api::waf::BLANKET.limit {
        let res = page
            .clone()
            .oneshot(get("192.0.2.9:443"))
            .await
            .expect("answer");
        assert_ne!(res.status(), 429);
    }
    let res = page
        .clone()
        .oneshot(get("192.0.2.9:443"))
        .await
        .expect("answer");
    assert_eq!(res.status(), 429);
    assert!(res.headers().contains_key("retry-after"));
    let other = page.oneshot(get("192.0.2.10:443")).await.expect("answer");
    assert_ne!(other.status(), 429);
}
