//! Request bodies the handlers never see: malformed, mistyped, oversized. Each is 400
//! INVALID_PARAMETER naming the field (or `body` when there is no field to name).

use crate::helpers::{registration, request, TestApp, TestResponse};
use axum::body::{Body, Bytes};
use axum::http::Method;
use serde_json::{json, Value};

async fn post_raw(app: &TestApp, p: &str, content_type: Option<&str>, body: &str) -> TestResponse {
    let mut b = request(Method::POST, p);
    if let Some(ct) = content_type {
        b = b.header("content-type", ct);
    }
    app.call(b.body(Body::from(body.to_owned())).unwrap()).await
}

#[track_caller]
fn names(res: &TestResponse, field: &str, case: &str) {
    let body = res.json();
    assert_eq!(
        (
            res.status.as_u16(),
            body["reason"].as_str(),
            body["field"].as_str()
        ),
        (400, Some("INVALID_PARAMETER"), Some(field)),
        "{case}: {}",
        res.text
    );
}

#[tokio::test]
async fn malformed_json_is_refused_as_an_invalid_body() {
    let app = TestApp::spawn().await;
    for (case, raw) in [
        (
            "cut short",
            r#"{"account": "ann@example.com", "password": "#,
        ),
        ("not JSON at all", "account=ann&password=x"),
        ("empty", ""),
        (
            "trailing garbage",
            r#"{"account":"a@b.cn","password":"x"} x"#,
        ),
    ] {
        let res = post_raw(&app, "/auth/login/password", Some("application/json"), raw).await;
        names(&res, "body", case);
    }
}

#[tokio::test]
async fn wrong_types_unknown_and_missing_fields_are_named() {
    let app = TestApp::spawn().await;
    let valid = registration("annlee", "ann@example.com", "123456");
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "terms as a string",
            json!({ "acceptTerms": "yes" }),
            "acceptTerms",
        ),
        (
            "a username as a number",
            json!({ "userName": 42 }),
            "userName",
        ),
        ("a code as null", json!({ "code": null }), "code"),
        ("an unknown field", json!({ "isAdmin": true }), "isAdmin"),
        (
            "an unknown field whose name is not a field name",
            json!({ "x\u{2028}\n{\"reason\":\"forged\"}": true }),
            "body",
        ),
        (
            "an unknown field with a long name",
            json!({ "a".repeat(100): 1 }),
            "body",
        ),
    ];
    for (case, patch, field) in cases {
        let mut body = valid.clone();
        for (k, v) in patch.as_object().unwrap() {
            body[k] = v.clone();
        }
        names(&app.post_register(&body).await, field, case);
    }
    for missing in ["password", "confirmPassword", "acceptTerms", "account"] {
        let mut body = valid.clone();
        body.as_object_mut().unwrap().remove(missing);
        names(&app.post_register(&body).await, missing, missing);
    }
    let res = app
        .post_identity(&json!({ "account": "ann@example.com", "purpose": "admin" }))
        .await;
    names(&res, "purpose", "an unknown purpose");
    assert!(app.outbox.messages().is_empty());
}

#[tokio::test]
async fn a_body_that_is_not_declared_as_json_is_refused() {
    let app = TestApp::spawn().await;
    let body = json!({ "account": "ann@example.com", "password": "x" }).to_string();
    for ct in [
        None,
        Some("text/plain"),
        Some("application/x-www-form-urlencoded"),
    ] {
        let res = post_raw(&app, "/auth/login/password", ct, &body).await;
        names(&res, "body", &format!("{ct:?}"));
    }
    // The same body declared as JSON reaches the handler.
    let res = post_raw(
        &app,
        "/auth/login/password",
        Some("application/json; charset=utf-8"),
        &body,
    )
    .await;
    res.error(401, "PASSWORD_ERROR");
}

fn big_login_body() -> String {
    let body =
        json!({ "account": "ann@example.com", "password": "x".repeat(70 * 1024) }).to_string();
    assert!(body.len() > 70 * 1024);
    body
}

#[tokio::test]
async fn a_70_kb_body_with_content_length_is_refused() {
    let app = TestApp::spawn().await;
    let body = big_login_body();
    let req = request(Method::POST, "/auth/login/password")
        .header("content-type", "application/json")
        .header("content-length", body.len().to_string())
        .body(Body::from(body))
        .unwrap();
    names(&app.call(req).await, "body", "declared 70 KB");
}

fn streamed(body: String) -> Body {
    let chunks: Vec<Result<Bytes, std::io::Error>> = body
        .into_bytes()
        .chunks(8 * 1024)
        .map(|c| Ok(Bytes::copy_from_slice(c)))
        .collect();
    Body::from_stream(futures_util::stream::iter(chunks))
}

#[tokio::test]
async fn a_70_kb_body_streamed_without_content_length_is_refused() {
    let app = TestApp::spawn().await;
    let req = request(Method::POST, "/auth/login/password")
        .header("content-type", "application/json")
        .body(streamed(big_login_body()))
        .unwrap();
    assert!(req.headers().get("content-length").is_none());
    names(&app.call(req).await, "body", "streamed 70 KB");

    // A small streamed body is read normally.
    let small = json!({ "account": "ann@example.com", "password": "x" }).to_string();
    let req = request(Method::POST, "/auth/login/password")
        .header("content-type", "application/json")
        .body(streamed(small))
        .unwrap();
    app.call(req).await.error(401, "PASSWORD_ERROR");
}
