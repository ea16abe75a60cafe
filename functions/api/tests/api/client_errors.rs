//! `POST /client-errors` (spec §7: the web app's error reports) and `GET /version` (spec §9):
//! anonymous, strict JSON, a small body, nothing stored.

use crate::helpers::{json_request, request, TestApp};
use axum::body::{Body, Bytes};
use axum::http::Method;
use serde_json::{json, Value};

fn report() -> Value {
    json!({
        "version": "release.0.1.0",
        "kind": "error",
        "message": "TypeError: x is undefined",
        "route": "/en-US/passport/signin",
        "stack": "TypeError: x is undefined\n    at f (http://127.0.0.1:8080/assets/index-abc.js:1:2345)"
    })
}

#[tokio::test]
async fn an_anonymous_report_is_accepted_with_no_content_and_stores_nothing() {
    let app = TestApp::spawn().await;
    for kind in ["error", "rejection", "route"] {
        let mut body = report();
        body["kind"] = json!(kind);
        let res = app
            .call(json_request(Method::POST, "/client-errors", None, &body))
            .await;
        assert_eq!(res.status.as_u16(), 204, "{kind}: {}", res.text);
        assert_eq!(res.text, "");
    }
    // The stack is optional.
    let mut body = report();
    body.as_object_mut().unwrap().remove("stack");
    let res = app
        .call(json_request(Method::POST, "/client-errors", None, &body))
        .await;
    assert_eq!(res.status.as_u16(), 204, "{}", res.text);
    assert!(app.store.written().is_empty(), "no table write");
}

#[tokio::test]
async fn unknown_fields_missing_fields_and_unknown_kinds_are_refused_by_name() {
    let app = TestApp::spawn().await;
    let cases: Vec<(Value, &str)> = vec![
        (json!({ "token": "abc" }), "token"),
        (json!({ "kind": "debug" }), "kind"),
        (json!({ "kind": 3 }), "kind"),
        (json!({ "route": null }), "route"),
    ];
    for (patch, field) in cases {
        let mut body = report();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        let res = app
            .call(json_request(Method::POST, "/client-errors", None, &body))
            .await;
        let b = res.error(400, "INVALID_PARAMETER");
        assert_eq!(b["field"], field, "{patch}");
    }
    let mut body = report();
    body.as_object_mut().unwrap().remove("version");
    let res = app
        .call(json_request(Method::POST, "/client-errors", None, &body))
        .await;
    assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "version");
}

#[tokio::test]
async fn a_body_over_8_kib_is_refused_whether_announced_or_streamed() {
    let app = TestApp::spawn().await;
    let mut body = report();
    body["stack"] = json!("x".repeat(9 * 1024));
    let res = app
        .call(json_request(Method::POST, "/client-errors", None, &body))
        .await;
    let b = res.error(400, "INVALID_PARAMETER");
    assert_eq!(b["field"], "body");
    assert!(
        b["message"].as_str().unwrap().contains("8 KiB"),
        "{}",
        res.text
    );

    let text = body.to_string();
    let chunks: Vec<Result<Bytes, std::io::Error>> = text
        .as_bytes()
        .chunks(1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    let req = request(Method::POST, "/client-errors")
        .header("content-type", "application/json")
        .body(Body::from_stream(futures_util::stream::iter(chunks)))
        .expect("request");
    assert!(req.headers().get("content-length").is_none());
    let res = app.call(req).await;
    let b = res.error(400, "INVALID_PARAMETER");
    assert_eq!(b["field"], "body");
    assert!(
        b["message"].as_str().unwrap().contains("8 KiB"),
        "{}",
        res.text
    );

    // Just under the limit is fine.
    body["stack"] = json!("x".repeat(7 * 1024));
    let res = app
        .call(json_request(Method::POST, "/client-errors", None, &body))
        .await;
    assert_eq!(res.status.as_u16(), 204, "{}", res.text);
}

#[tokio::test]
async fn other_routes_keep_their_64_kib_limit() {
    let app = TestApp::spawn().await;
    let body = json!({ "account": "a".repeat(32 * 1024), "password": "x" });
    let res = app
        .call(json_request(
            Method::POST,
            "/auth/login/password",
            None,
            &body,
        ))
        .await;
    assert_ne!(res.json()["field"], "body", "{}", res.text);
}

#[tokio::test]
async fn the_version_is_release_dot_the_package_version() {
    let app = TestApp::spawn().await;
    let res = app
        .call(
            request(Method::GET, "/version")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    let body = res.ok(200);
    assert_eq!(
        body,
        json!({ "version": format!("release.{}", env!("CARGO_PKG_VERSION")) })
    );
    assert_eq!(body["version"], ciam_api::RELEASE);
}

/// The web app builds "release." + package.json's version; the API answers "release." + the
/// Cargo workspace version. They must be the same number.
#[test]
fn package_json_and_the_cargo_workspace_have_the_same_version() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    for file in ["package.json", "web/package.json"] {
        let text = std::fs::read_to_string(root.join(file)).unwrap();
        let pkg: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(
            pkg["version"],
            env!("CARGO_PKG_VERSION"),
            "{file} and Cargo.toml [workspace.package] version differ"
        );
    }
}
