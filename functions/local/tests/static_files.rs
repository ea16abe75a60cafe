//! The built web app as `ciam serve` sends it (functions/local/src/web.rs): hashed assets cached
//! for good, HTML revalidated, a missing file 404 (not index.html), the brotli or gzip sibling
//! written at build time (web/scripts/precompress.mjs) chosen by Accept-Encoding with
//! `Vary: Accept-Encoding`, and a language segment in the wrong case redirected to its canonical
//! form. Every answer keeps the security headers (tests/headers.rs).

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use ciam_core::testing::Builder;
use http::Request;
use std::path::{Path, PathBuf};
use tower::ServiceExt;

const JS: &str = "console.log('the app')";
/// Stand-ins for the compressed siblings: the server sends the file, it does not decode it.
const JS_BR: &[u8] = b"br:console.log";
const JS_GZ: &[u8] = b"gz:console.log";
const HTML: &str = "<!doctype html><title>Ciam</title>";

/// A built web app of its own for each test (they run in parallel).
fn dist(name: &str, favicon: bool) -> PathBuf {
    let d = std::env::temp_dir().join(format!("ciam-static-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), HTML).unwrap();
    std::fs::write(d.join("index.html.br"), b"br:index").unwrap();
    std::fs::write(d.join("index.html.gz"), b"gz:index").unwrap();
    std::fs::write(d.join("assets/app-1234.js"), JS).unwrap();
    std::fs::write(d.join("assets/app-1234.js.br"), JS_BR).unwrap();
    std::fs::write(d.join("assets/app-1234.js.gz"), JS_GZ).unwrap();
    // Only a gzip sibling: a brotli-only client gets the file itself.
    std::fs::write(d.join("assets/app-1234.css"), "a{}").unwrap();
    std::fs::write(d.join("assets/app-1234.css.gz"), b"gz:a{}").unwrap();
    std::fs::write(d.join("assets/logo-1234.png"), b"\x89PNG").unwrap();
    if favicon {
        std::fs::write(d.join("favicon.ico"), b"ico").unwrap();
    }
    d
}

struct Answer {
    status: u16,
    headers: http::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
    /// Every `Vary` value, lower case.
    fn vary(&self) -> Vec<String> {
        self.headers
            .get_all("vary")
            .iter()
            .flat_map(|v| v.to_str().unwrap().split(','))
            .map(|s| s.trim().to_ascii_lowercase())
            .collect()
    }
}

async fn get(d: &Path, uri: &str, accept_encoding: Option<&str>) -> Answer {
    ciam_core::testing::ask_each_thread();
    let ciam = Builder::new(0).system_clock().build().await;
    let app = ciam_local::app(ciam, None, d);
    let mut req = Request::get(uri);
    if let Some(ae) = accept_encoding {
        req = req.header("accept-encoding", ae);
    }
    let res = app.oneshot(req.body(Body::empty()).unwrap()).await.unwrap();
    let status = res.status().as_u16();
    let headers = res.headers().clone();
    let body = axum::body::to_bytes(res.into_body(), 1 << 20)
        .await
        .unwrap()
        .to_vec();
    Answer {
        status,
        headers,
        body,
    }
}

/// The security headers every answer carries (tests/headers.rs pins all of them).
fn assert_secure(a: &Answer, label: &str) {
    assert_eq!(a.header("x-frame-options"), Some("DENY"), "{label}");
    assert_eq!(
        a.header("x-content-type-options"),
        Some("nosniff"),
        "{label}"
    );
    assert!(
        a.header("content-security-policy")
            .is_some_and(|c| c.contains("default-src 'self'")),
        "{label}"
    );
}

#[tokio::test]
async fn hashed_assets_are_immutable_and_html_is_revalidated() {
    let d = dist("cache", false);
    for uri in [
        "/assets/app-1234.js",
        "/assets/app-1234.css",
        "/assets/logo-1234.png",
    ] {
        let a = get(&d, uri, None).await;
        assert_eq!(a.status, 200, "{uri}");
        assert_eq!(
            a.header("cache-control"),
            Some(ciam_local::IMMUTABLE),
            "{uri}"
        );
        assert_eq!(ciam_local::IMMUTABLE, "public, max-age=31536000, immutable");
        assert_secure(&a, uri);
    }
    for uri in [
        "/",
        "/index.html",
        "/zh-CN/passport/login",
        "/en-US/personal/info?x=1",
        "/signout",
    ] {
        let a = get(&d, uri, Some("gzip, br")).await;
        assert_eq!(a.status, 200, "{uri}");
        assert!(
            a.header("content-type").unwrap().starts_with("text/html"),
            "{uri}"
        );
        assert_eq!(a.header("cache-control"), Some("no-cache"), "{uri}");
        assert_secure(&a, uri);
    }
    let _ = std::fs::remove_dir_all(d);
}

#[tokio::test]
async fn a_missing_file_is_404_not_the_app() {
    let d = dist("missing", false);
    for uri in [
        "/favicon.ico",
        "/robots.txt",
        "/assets/nope.js",
        "/assets/nope",
        "/zh-CN/passport/nope.png",
    ] {
        let a = get(&d, uri, Some("br, gzip")).await;
        assert_eq!(a.status, 404, "{uri}");
        assert_ne!(a.body, HTML.as_bytes(), "{uri}");
        assert_ne!(
            a.header("cache-control"),
            Some(ciam_local::IMMUTABLE),
            "{uri}: a 404 is not cached for good"
        );
        assert_secure(&a, uri);
    }
    // A favicon that is there is sent.
    let d2 = dist("favicon", true);
    let a = get(&d2, "/favicon.ico", None).await;
    assert_eq!((a.status, a.body.as_slice()), (200, &b"ico"[..]));
    let _ = std::fs::remove_dir_all(d);
    let _ = std::fs::remove_dir_all(d2);
}

#[tokio::test]
async fn brotli_or_gzip_by_accept_encoding_with_vary() {
    let d = dist("encoding", false);
    let js = "/assets/app-1234.js";
    let cases: [(Option<&str>, Option<&str>, &[u8]); 6] = [
        (Some("gzip, deflate, br, zstd"), Some("br"), JS_BR),
        (Some("br"), Some("br"), JS_BR),
        (Some("gzip"), Some("gzip"), JS_GZ),
        (Some("br;q=0, gzip"), Some("gzip"), JS_GZ),
        (Some("identity"), None, JS.as_bytes()),
        (None, None, JS.as_bytes()),
    ];
    for (accept, encoding, body) in cases {
        let a = get(&d, js, accept).await;
        assert_eq!(a.status, 200, "{accept:?}");
        assert_eq!(a.header("content-encoding"), encoding, "{accept:?}");
        assert_eq!(a.body, body, "{accept:?}");
        assert!(
            a.header("content-type")
                .unwrap()
                .starts_with("text/javascript"),
            "{accept:?}: the type of the file, not of its compressed sibling"
        );
        assert_eq!(a.vary(), ["accept-encoding"], "{accept:?}");
        assert_eq!(a.header("cache-control"), Some(ciam_local::IMMUTABLE));
        assert_secure(&a, js);
    }
    // No brotli sibling: gzip when taken, else the file.
    let a = get(&d, "/assets/app-1234.css", Some("br, gzip")).await;
    assert_eq!(a.header("content-encoding"), Some("gzip"));
    let a = get(&d, "/assets/app-1234.css", Some("br")).await;
    assert_eq!(
        (a.header("content-encoding"), a.body.as_slice()),
        (None, &b"a{}"[..])
    );
    assert_eq!(a.vary(), ["accept-encoding"]);
    // The SPA's pages too.
    for uri in ["/", "/zh-CN/passport/signin"] {
        let a = get(&d, uri, Some("gzip, br")).await;
        assert_eq!(
            (a.header("content-encoding"), a.body.as_slice()),
            (Some("br"), &b"br:index"[..]),
            "{uri}"
        );
        assert_eq!(a.vary(), ["accept-encoding"], "{uri}");
        assert_eq!(a.header("cache-control"), Some("no-cache"), "{uri}");
        let a = get(&d, uri, None).await;
        assert_eq!(
            (a.header("content-encoding"), a.body.as_slice()),
            (None, HTML.as_bytes()),
            "{uri}"
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

#[tokio::test]
async fn a_language_in_the_wrong_case_is_redirected_to_the_same_page() {
    let d = dist("language", false);
    for (from, to) in [
        (
            "/zh-cn/passport/register?x=1",
            "/zh-CN/passport/register?x=1",
        ),
        ("/EN-us", "/en-US"),
        (
            "/en-us/embedded/signin?appId=a1&serviceUrl=https://p.example.com/cb",
            "/en-US/embedded/signin?appId=a1&serviceUrl=https://p.example.com/cb",
        ),
        (
            "/zh-cn/passport/signin?serviceUrl=https%3A%2F%2Fp.example.com&b=2",
            "/zh-CN/passport/signin?b=2",
        ),
    ] {
        let a = get(&d, from, None).await;
        assert_eq!(a.status, 308, "{from}");
        assert_eq!(a.header("location"), Some(to), "{from}");
        assert_secure(&a, from);
    }
    // Canonical, unknown and API paths are not redirected.
    for (uri, status) in [
        ("/zh-CN/passport/register?x=1", 200),
        ("/fr-fr/passport/register", 200),
        ("/ciam/v1/nowhere", 404),
    ] {
        assert_eq!(get(&d, uri, None).await.status, status, "{uri}");
    }
    let _ = std::fs::remove_dir_all(d);
}
