//! The origin secret rotates under traffic with no refusal (docs/operations.md §1): a stream of
//! concurrent requests goes through the real origin-check router of several execution
//! environments while the three steps run, one environment having started before step 1; not
//! one answer is a 403, a wrong header is still refused all along, and a flood of wrong headers
//! reads the secret again at most once per window.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use async_trait::async_trait;
use axum::body::Body;
use ciam_lambdas::origin::{guard, OriginCheck, OriginSource, OriginValues, HEADER};
use ciam_lambdas::secrets::{origin_verify, SecretJson, ORIGIN_VAR};
use http::StatusCode;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tower::ServiceExt;

/// The secret, in process: its SecretString, which the test changes, and how often it was read.
#[derive(Default)]
struct Secret {
    text: Mutex<String>,
    reads: AtomicUsize,
}

impl Secret {
    fn set(&self, text: String) {
        *self.text.lock().unwrap() = text;
    }
    fn reads(&self) -> usize {
        self.reads.load(Ordering::SeqCst)
    }
}

#[async_trait]
impl OriginSource for Secret {
    async fn read(&self) -> Result<OriginValues, String> {
        self.reads.fetch_add(1, Ordering::SeqCst);
        let text = self.text.lock().unwrap().clone();
        // A Secrets Manager round trip takes a few milliseconds.
        tokio::time::sleep(Duration::from_millis(3)).await;
        origin_verify(&SecretJson::parse(ORIGIN_VAR, &text)?)
    }
}

/// An execution environment starting now: it reads the secret at init, as `init` does.
async fn environment(secret: &Arc<Secret>, window: Duration) -> axum::Router {
    let values = secret.read().await.unwrap();
    let check = OriginCheck::rotating(values, secret.clone(), window);
    let ping = axum::Router::new().route("/ciam/v1/ping", axum::routing::get(|| async { "pong" }));
    guard(ping, Some(check))
}

async fn call(router: &axum::Router, header: &str) -> StatusCode {
    let req = http::Request::get("/ciam/v1/ping")
        .header(HEADER, header)
        .body(Body::empty())
        .unwrap();
    router.clone().oneshot(req).await.unwrap().status()
}

/// What CloudFront sends: during a distribution deployment, some edge locations still the old
/// value and others already the new one.
struct CloudFront {
    values: Mutex<Vec<String>>,
}

impl CloudFront {
    fn header(&self, n: usize) -> String {
        let v = self.values.lock().unwrap();
        v[n % v.len()].clone()
    }
    fn send(&self, values: &[&str]) {
        *self.values.lock().unwrap() = values.iter().map(|s| s.to_string()).collect();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_origin_secret_rotates_under_a_stream_of_requests_with_no_refusal() {
    let old = "o".repeat(40) + "-old-origin-verify-value";
    let new = "n".repeat(40) + "-new-origin-verify-value";
    let wrong = "w".repeat(40) + "-not-the-origin-value-xx";
    let window = Duration::from_millis(100);
    let secret = Arc::new(Secret::default());
    secret.set(format!(r#"{{"originVerify": "{old}"}}"#));
    // An environment that started before step 1 and holds only the old value.
    let environments = Arc::new(Mutex::new(vec![environment(&secret, window).await]));
    let cloudfront = Arc::new(CloudFront {
        values: Mutex::new(vec![old.clone()]),
    });
    let stop = Arc::new(AtomicBool::new(false));
    let (ok, refused, wrong_passed, wrong_refused) = (
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
        Arc::new(AtomicUsize::new(0)),
    );
    let mut clients = Vec::new();
    for client in 0..8_usize {
        let (environments, cloudfront, stop) =
            (environments.clone(), cloudfront.clone(), stop.clone());
        let (ok, refused, wrong_passed, wrong_refused) = (
            ok.clone(),
            refused.clone(),
            wrong_passed.clone(),
            wrong_refused.clone(),
        );
        let wrong = wrong.clone();
        clients.push(tokio::spawn(async move {
            let mut n = client;
            while !stop.load(Ordering::SeqCst) {
                n += 1;
                let router = {
                    let envs = environments.lock().unwrap();
                    envs[n % envs.len()].clone()
                };
                // One request in ten goes around CloudFront with a made-up header.
                if n % 10 == 0 {
                    match call(&router, &wrong).await {
                        StatusCode::FORBIDDEN => wrong_refused.fetch_add(1, Ordering::SeqCst),
                        _ => wrong_passed.fetch_add(1, Ordering::SeqCst),
                    };
                    continue;
                }
                match call(&router, &cloudfront.header(n)).await {
                    StatusCode::OK => ok.fetch_add(1, Ordering::SeqCst),
                    _ => refused.fetch_add(1, Ordering::SeqCst),
                };
                tokio::task::yield_now().await;
            }
        }));
    }
    let pause = || tokio::time::sleep(Duration::from_millis(300));
    pause().await;
    // Step 1: the secret holds the new value and the previous one.
    secret.set(format!(
        r#"{{"originVerify": "{new}", "previousOriginVerify": "{old}"}}"#
    ));
    pause().await;
    let started = environment(&secret, window).await;
    environments.lock().unwrap().push(started);
    pause().await;
    // Step 2: CloudFront's custom header changes, edge location by edge location...
    cloudfront.send(&[&old, &new]);
    pause().await;
    let started = environment(&secret, window).await;
    environments.lock().unwrap().push(started);
    pause().await;
    // ... until the distribution is deployed: only the new value.
    cloudfront.send(&[&new]);
    pause().await;
    // Step 3: the previous value is dropped.
    secret.set(format!(r#"{{"originVerify": "{new}"}}"#));
    pause().await;
    let started = environment(&secret, window).await;
    environments.lock().unwrap().push(started);
    pause().await;
    stop.store(true, Ordering::SeqCst);
    for c in clients {
        c.await.unwrap();
    }
    let (ok, refused) = (ok.load(Ordering::SeqCst), refused.load(Ordering::SeqCst));
    assert_eq!(refused, 0, "CloudFront's requests refused ({ok} passed)");
    assert!(ok > 200, "too few requests to show anything: {ok}");
    assert_eq!(wrong_passed.load(Ordering::SeqCst), 0);
    assert!(wrong_refused.load(Ordering::SeqCst) > 20);
    // The old value is no longer accepted anywhere once every environment has read the secret
    // again (the old one reads it on its next refusal, the window having passed).
    tokio::time::sleep(window).await;
    let all = environments.lock().unwrap().clone();
    for env in all {
        assert_eq!(call(&env, &new).await, StatusCode::OK);
        tokio::time::sleep(window).await;
        assert_eq!(call(&env, &old).await, StatusCode::FORBIDDEN);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_flood_of_wrong_headers_reads_the_secret_again_at_most_once_per_window() {
    let value = "v".repeat(64);
    let secret = Arc::new(Secret::default());
    secret.set(format!(r#"{{"originVerify": "{value}"}}"#));
    let window = Duration::from_millis(400);
    let router = environment(&secret, window).await;
    assert_eq!(secret.reads(), 1, "the init's read");
    let flood = |n: usize| {
        let router = router.clone();
        async move {
            let calls = (0..n).map(|i| {
                let router = router.clone();
                tokio::spawn(async move { call(&router, &format!("{}{i}", "x".repeat(40))).await })
            });
            for c in calls.collect::<Vec<_>>() {
                assert_eq!(c.await.unwrap(), StatusCode::FORBIDDEN);
            }
        }
    };
    flood(300).await;
    assert_eq!(secret.reads(), 2, "300 refusals at once: one read again");
    flood(300).await;
    assert_eq!(secret.reads(), 2, "within the window: none");
    // The right header never waits for a read.
    assert_eq!(call(&router, &value).await, StatusCode::OK);
    assert_eq!(secret.reads(), 2);
    tokio::time::sleep(window).await;
    flood(300).await;
    assert_eq!(secret.reads(), 3, "the next window: one more");
    // A secret that cannot be read keeps the values held and refuses; no retry storm either.
    secret.set("not json".into());
    tokio::time::sleep(window).await;
    flood(100).await;
    assert_eq!(secret.reads(), 4);
    assert_eq!(call(&router, &value).await, StatusCode::OK);
}
