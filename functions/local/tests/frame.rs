//! The frame policy of the pages `ciam serve` answers (issue 5 §5): only the embedded sign-in may
//! be framed, and only by the frame origins registered for its app, read on every request. The
//! rest of each answer's security headers is tested in headers.rs.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use ciam_core::testing::Builder;
use ciam_core::Ciam;
use ciam_store::{Item, Update, Value};
use http::Request;
use std::path::PathBuf;
use tower::ServiceExt;

fn dist(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-frame-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), "<!doctype html><title>Ciam</title>").unwrap();
    std::fs::write(d.join("assets/app-1234.js"), "console.log(1)").unwrap();
    d
}

async fn ciam() -> Ciam {
    Builder::new(0).system_clock().build().await
}

async fn register(ciam: &Ciam, app_id: &str, origins: &[&str]) {
    let list = Value::L(origins.iter().map(|o| Value::S((*o).to_owned())).collect());
    ciam.store
        .put(
            Item::new(ciam_core::apps::app_key(app_id))
                .with("appId", app_id)
                .with("frameOrigins", list)
                .with("serviceUrls", Value::L(vec![Value::S(SERVICE.to_owned())])),
            None,
        )
        .await
        .unwrap();
}

struct Answer {
    status: u16,
    csp: Option<String>,
    xfo: Option<String>,
    cache: Option<String>,
}

async fn get(ciam: &Ciam, dist: &std::path::Path, uri: &str) -> Answer {
    let app = ciam_local::app(ciam.clone(), None, dist);
    let res = app
        .oneshot(Request::get(uri).body(Body::empty()).unwrap())
        .await
        .unwrap();
    let h = |n: &str| res.headers().get(n).map(|v| v.to_str().unwrap().to_owned());
    Answer {
        status: res.status().as_u16(),
        csp: h("content-security-policy"),
        xfo: h("x-frame-options"),
        cache: h("cache-control"),
    }
}

/// The CSP of infra/security-headers.json, whose `frame-ancestors` is 'none' (as `ciam serve`
/// sends it: with the development-only loopback image sources).
fn none() -> String {
    framed_by("'none'")
}

/// That CSP with `frame-ancestors <origins>`.
fn framed_by(origins: &str) -> String {
    let csp = ciam_api::headers::with_image_sources(
        &ciam_api::headers::csp_with_frame_ancestors(origins),
        ciam_api::headers::DEV_IMAGE_SOURCES,
    );
    let csp = csp.to_str().unwrap();
    assert!(csp.contains(&format!("frame-ancestors {origins}")), "{csp}");
    csp.to_owned()
}
const SERVICE: &str = "https://partner.example.com/cb";

#[tokio::test]
async fn every_page_but_the_embedded_sign_in_refuses_every_frame() {
    let d = dist("pages");
    let c = ciam().await;
    register(&c, "a1", &["https://partner.example.com"]).await;
    for uri in [
        "/",
        "/index.html",
        "/zh-CN/passport/signin",
        "/en-US/passport/authorize?appId=a1&serviceUrl=https://partner.example.com/cb",
        "/zh-CN/embedded/other?appId=a1",
        "/fr-FR/embedded/signin?appId=a1",
        "/embedded/signin?appId=a1",
    ] {
        let a = get(&c, &d, uri).await;
        assert_eq!(a.status, 200, "{uri}");
        assert_eq!(a.csp, Some(none()), "{uri}");
        assert_eq!(a.xfo.as_deref(), Some("DENY"), "{uri}");
        assert_eq!(a.cache.as_deref(), Some("no-cache"), "{uri}");
    }
    // Assets and API answers refuse frames too, but are not forced to revalidate.
    let js = get(&c, &d, "/assets/app-1234.js").await;
    assert_eq!(
        (js.status, js.csp, js.xfo.as_deref()),
        (200, Some(none()), Some("DENY"))
    );
    assert_ne!(js.cache.as_deref(), Some("no-cache"));
    let api = get(&c, &d, "/ciam/v1/auth/location").await;
    assert_eq!((api.status, api.csp), (200, Some(none())));
    assert_eq!(api.cache.as_deref(), Some("no-store"));
    let _ = std::fs::remove_dir_all(d);
}

#[tokio::test]
async fn the_embedded_sign_in_may_be_framed_by_its_apps_registered_origins_only() {
    let d = dist("embedded");
    let c = ciam().await;
    register(
        &c,
        "a1",
        &["https://partner.example.com", "http://127.0.0.1:5173"],
    )
    .await;
    register(&c, "a2", &[]).await;
    for lang in ["zh-CN", "en-US"] {
        let a = get(&c, &d, &format!("/{lang}/embedded/signin?appId=a1&serviceUrl=https://partner.example.com/cb&validateMsg=notice")).await;
        assert_eq!(a.status, 200);
        assert_eq!(
            a.csp,
            Some(framed_by(
                "https://partner.example.com http://127.0.0.1:5173"
            ))
        );
        // X-Frame-Options cannot name origins, but browsers that know frame-ancestors ignore
        // it (web/tests/e2e/embedded.test.mjs frames this page in Chromium), and older ones
        // refusing the frame is the safe side.
        assert_eq!(a.xfo.as_deref(), Some("DENY"));
        assert_eq!(a.cache.as_deref(), Some("no-cache"));
    }
    for uri in [
        "/zh-CN/embedded/signin?appId=a2",
        "/zh-CN/embedded/signin?appId=unknown",
        "/zh-CN/embedded/signin?appId=",
        "/zh-CN/embedded/signin",
        "/zh-CN/embedded/signin?serviceUrl=https://partner.example.com/cb",
        // The app is known but the serviceUrl is not exactly one it registered.
        "/zh-CN/embedded/signin?appId=a1",
        "/zh-CN/embedded/signin?appId=a1&serviceUrl=https://partner.example.com/cb/",
        "/zh-CN/embedded/signin?appId=a1&serviceUrl=https://evil.example.net/cb",
        "/zh-CN/embedded/signin?appId=a1&serviceUrl=https://partner.example.com/cb?x=1",
    ] {
        let a = get(&c, &d, uri).await;
        assert_eq!(a.csp, Some(none()), "{uri}");
    }

    // An admin's change applies to the next load: nothing is cached.
    c.store
        .update(
            &ciam_core::apps::app_key("a1"),
            vec![Update::Set(
                "frameOrigins".into(),
                Value::L(vec![Value::S("https://other.example.com".into())]),
            )],
            None,
        )
        .await
        .unwrap();
    let a = get(
        &c,
        &d,
        &format!("/en-US/embedded/signin?appId=a1&serviceUrl={SERVICE}"),
    )
    .await;
    assert_eq!(a.csp, Some(framed_by("https://other.example.com")));

    // A value that is not a plain origin (never stored by the registry) cannot widen the policy.
    register(
        &c,
        "a3",
        &["https://ok.example.com", "*; script-src *", "*"],
    )
    .await;
    let a = get(
        &c,
        &d,
        &format!("/en-US/embedded/signin?appId=a3&serviceUrl={SERVICE}"),
    )
    .await;
    assert_eq!(a.csp, Some(framed_by("https://ok.example.com")));
    let _ = std::fs::remove_dir_all(d);
}

#[tokio::test]
async fn without_a_web_build_the_placeholder_page_refuses_frames_too() {
    let c = ciam().await;
    let a = get(
        &c,
        std::path::Path::new("/nonexistent-web-dist"),
        "/zh-CN/passport/signin",
    )
    .await;
    assert_eq!(a.csp, Some(none()));
    assert_eq!(a.xfo.as_deref(), Some("DENY"));
}
