//! Every answer of `ciam serve` carries exactly the headers of infra/security-headers.json, read
//! here from the file itself, with loopback image sources added to the CSP for development only:
//! pages, assets, API answers and errors, the dev outbox (the avatar images keep their stricter
//! CSP). And a client error report becomes the structured log line
//! the template's metric filter matches.

// Test code: a panic is the failure report, so unwrap and expect are allowed here
// (the workspace denies them in the product, Cargo.toml [workspace.lints]).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use axum::body::Body;
use ciam_core::testing::Builder;
use ciam_core::MemoryBlobs;
use ciam_local::DevOutbox;
use http::Request;
use serde_json::Value;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tower::ServiceExt;

fn file_headers() -> Vec<(String, String)> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../infra/security-headers.json");
    let json: serde_json::Map<String, Value> =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    json.into_iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.as_str().unwrap().to_owned()))
        .collect()
}

/// What `ciam serve` sends: the file's headers, its CSP's `img-src` with the development-only
/// loopback sources added (the file, hence CloudFront, has none).
fn serve_headers() -> Vec<(String, String)> {
    file_headers()
        .into_iter()
        .map(|(k, v)| {
            if k != "content-security-policy" {
                return (k, v);
            }
            assert!(!v.contains("localhost") && !v.contains("127.0.0.1"), "{v}");
            let v = v.replacen(
                "img-src 'self' data: blob: https:;",
                "img-src 'self' data: blob: https: http://localhost:* http://127.0.0.1:*;",
                1,
            );
            assert!(v.contains("http://localhost:*"), "{v}");
            (k, v)
        })
        .collect()
}

/// A built web app of its own for each test: the tests of this file run in parallel, and one
/// must never remove the other's folder.
fn dist() -> PathBuf {
    static NEXT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let d = std::env::temp_dir().join(format!("ciam-headers-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.join("assets")).unwrap();
    std::fs::write(d.join("index.html"), "<!doctype html><title>Ciam</title>").unwrap();
    std::fs::write(d.join("assets/app-1234.js"), "console.log(1)").unwrap();
    d
}

/// An avatar key of the shape `ciam_core::avatar` makes, stored in the app's blobs.
const AVATAR: &str = "0123456789abcdef0123456789abcdef-00112233445566778899aabbccddeeff.png";

async fn app(dist: &std::path::Path) -> axum::Router {
    ciam_core::testing::ask_each_thread();
    let outbox = DevOutbox::default();
    let blobs = MemoryBlobs::default();
    ciam_core::BlobStore::put(&blobs, AVATAR, b"\x89PNG".to_vec(), "image/png")
        .await
        .unwrap();
    let ciam = Builder::new(0)
        .system_clock()
        .notifier(Arc::new(outbox.clone()))
        .blobs(Arc::new(blobs))
        .build()
        .await;
    ciam_local::app(ciam, Some(outbox), dist)
}

fn json_post(uri: &str, body: &str) -> Request<Body> {
    Request::post(uri)
        .header("content-type", "application/json")
        .body(Body::from(body.to_owned()))
        .unwrap()
}

#[tokio::test]
async fn every_kind_of_answer_carries_exactly_the_files_headers() {
    let d = dist();
    let app = app(&d).await;
    let want = serve_headers();
    assert!(want.len() >= 6, "{want:?}");
    let report = r#"{"version":"release.0.1.0","kind":"error","message":"m","route":"/"}"#;
    let cases: Vec<(&str, Request<Body>, u16)> = vec![
        (
            "page",
            Request::get("/zh-CN/passport/signin")
                .body(Body::empty())
                .unwrap(),
            200,
        ),
        (
            "asset",
            Request::get("/assets/app-1234.js")
                .body(Body::empty())
                .unwrap(),
            200,
        ),
        (
            "API",
            Request::get("/ciam/v1/version")
                .body(Body::empty())
                .unwrap(),
            200,
        ),
        (
            "API error",
            Request::get("/ciam/v1/auth/info")
                .body(Body::empty())
                .unwrap(),
            401,
        ),
        (
            "unknown API path",
            Request::get("/ciam/v1/nowhere")
                .body(Body::empty())
                .unwrap(),
            404,
        ),
        (
            "wrong method",
            Request::delete("/ciam/v1/version")
                .body(Body::empty())
                .unwrap(),
            405,
        ),
        ("bad body", json_post("/ciam/v1/client-errors", "{"), 400),
        ("report", json_post("/ciam/v1/client-errors", report), 204),
        (
            "dev outbox",
            Request::get("/ciam/dev/outbox")
                .body(Body::empty())
                .unwrap(),
            200,
        ),
    ];
    for (label, req, status) in cases {
        let res = app.clone().oneshot(req).await.unwrap();
        assert_eq!(res.status().as_u16(), status, "{label}");
        for (name, value) in &want {
            assert_eq!(
                res.headers().get(name).and_then(|v| v.to_str().ok()),
                Some(value.as_str()),
                "{label}: {name}"
            );
            assert_eq!(
                res.headers().get_all(name).iter().count(),
                1,
                "{label}: one {name}"
            );
        }
    }
    // The avatar images keep their own, stricter CSP (as behind CloudFront, whose policy does
    // not override the origin's); every other header is the file's.
    let res = app
        .oneshot(
            Request::get(format!("/ciam/v1/avatar/{AVATAR}"))
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    for (name, value) in &want {
        let want = if name == "content-security-policy" {
            "default-src 'none'; sandbox"
        } else {
            value.as_str()
        };
        assert_eq!(
            res.headers().get(name).and_then(|v| v.to_str().ok()),
            Some(want),
            "avatar: {name}"
        );
    }
    let _ = std::fs::remove_dir_all(d);
}

/// A writer for the test's subscriber: every line it is given.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Lines {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_report_is_one_json_log_line_with_its_fields_sanitised() {
    let d = dist();
    let app = app(&d).await;
    let lines = Lines::default();
    let writer = lines.clone();
    // The Lambdas' format (functions/lambdas/src/lib.rs): JSON, fields nested under "fields".
    let subscriber = tracing_subscriber::fmt()
        .json()
        .with_writer(move || writer.clone())
        .with_max_level(tracing::Level::INFO)
        .finish();
    let _guard = tracing::subscriber::set_default(subscriber);
    let body = serde_json::json!({
        "version": "release.0.1.0\u{202e}",
        "kind": "rejection",
        "message": "failed for ann@example.com with code 123456\nnext line",
        "route": "/en-US/personal/info?serviceUrl=https://a.example.com/cb#x",
        "stack": "Error\n    at f (http://127.0.0.1:8080/assets/index-1.js?t=secret:1:234567)"
    });
    let res = app
        .oneshot(json_post("/ciam/v1/client-errors", &body.to_string()))
        .await
        .unwrap();
    assert_eq!(res.status(), 204);
    let text = String::from_utf8(lines.0.lock().unwrap().clone()).unwrap();
    let reports: Vec<Value> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|l| l["fields"]["message"] == "client error")
        .collect();
    assert_eq!(reports.len(), 1, "{text}");
    let r = &reports[0];
    assert_eq!(r["level"], "WARN");
    let f = &r["fields"];
    assert_eq!(f["kind"], "rejection");
    assert_eq!(f["version"], "release.0.1.0");
    assert_eq!(f["route"], "/en-US/personal/info");
    assert_eq!(
        f["error"],
        "failed for [email] with code [number] next line"
    );
    assert_eq!(
        f["stack"],
        "Error |     at f (http://127.0.0.1:8080/assets/index-1.js)"
    );
    for secret in ["ann@", "123456", "serviceUrl", "secret", "\u{202e}"] {
        assert!(!r.to_string().contains(secret), "{secret} in {r}");
    }
    let _ = std::fs::remove_dir_all(d);
}
