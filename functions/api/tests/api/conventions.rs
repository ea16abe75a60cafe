//! What every response shares: the request id, the language of messages, the error body, and
//! the refusal of anything that is not a real session token.

use crate::helpers::{new_user_id, request, TestApp, PASSWORD};
use axum::body::Body;
use axum::http::Method;
use base64::Engine;
use serde_json::json;

fn get_with(p: &str, headers: &[(&str, &str)]) -> axum::http::Request<Body> {
    let mut b = request(Method::GET, p);
    for (k, v) in headers {
        b = b.header(*k, *v);
    }
    b.body(Body::empty()).unwrap()
}

#[tokio::test]
async fn a_uuid_request_id_is_echoed_and_anything_else_is_replaced() {
    let app = TestApp::spawn().await;
    let id = "6f1c1f4e-2b7a-4c3e-9a55-0c1d2e3f4a5b";
    for p in ["/auth/location", "/auth/info", "/no/such/route"] {
        let res = app.call(get_with(p, &[("x-request-id", id)])).await;
        assert_eq!(res.headers["x-request-id"], id, "{p}");
    }
    let mut seen = Vec::new();
    for sent in ["not-a-uuid", "'; drop table items; --", ""] {
        let res = app
            .call(get_with("/auth/location", &[("x-request-id", sent)]))
            .await;
        let got = res.headers["x-request-id"].to_str().unwrap().to_owned();
        assert!(uuid::Uuid::parse_str(&got).is_ok(), "{sent:?} -> {got}");
        assert_ne!(got, sent);
        seen.push(got);
    }
    let res = app.call(get_with("/auth/location", &[])).await;
    seen.push(res.headers["x-request-id"].to_str().unwrap().to_owned());
    seen.dedup();
    assert_eq!(seen.len(), 4, "a fresh id each time: {seen:?}");
}

#[tokio::test]
async fn error_messages_are_chinese_by_default_and_english_on_request() {
    let app = TestApp::spawn().await;
    let body = json!({ "account": "nobody@example.com", "password": PASSWORD }).to_string();
    let login = |lang: Option<&str>| {
        let mut b = request(Method::POST, "/auth/login/password")
            .header("content-type", "application/json");
        if let Some(l) = lang {
            b = b.header("accept-language", l);
        }
        b.body(Body::from(body.clone())).unwrap()
    };
    for (lang, message) in [
        (None, "账号或密码错误"),
        (Some("fr-FR"), "账号或密码错误"),
        (Some("en-US,en;q=0.9"), "Incorrect account or password"),
        (Some("zh-CN"), "账号或密码错误"),
    ] {
        let res = app.call(login(lang)).await;
        assert_eq!(
            res.error(401, "PASSWORD_ERROR")["message"],
            message,
            "{lang:?}"
        );
    }
}

#[tokio::test]
async fn the_location_comes_from_the_cdn_country_and_the_accepted_language() {
    let app = TestApp::spawn().await;
    let res = app
        .get_location(&[
            ("cloudfront-viewer-country", "de"),
            ("accept-language", "en-US"),
        ])
        .await;
    assert_eq!(res.ok(200), json!({ "country": "DE", "language": "en-US" }));
    let res = app.get_location(&[]).await;
    assert_eq!(res.ok(200), json!({ "country": null, "language": "zh-CN" }));
    let res = app
        .get_location(&[("cloudfront-viewer-country", "<script>")])
        .await;
    assert_eq!(res.ok(200)["country"], json!(null));
}

#[tokio::test]
async fn unknown_routes_and_methods_answer_the_error_body() {
    let app = TestApp::spawn().await;
    let res = app
        .call(get_with(
            "/auth/nothing-here",
            &[("accept-language", "en-US")],
        ))
        .await;
    assert_eq!(res.error(404, "NOT_FOUND")["message"], "Not found");
    let res = app
        .call(
            request(Method::DELETE, "/auth/info")
                .body(Body::empty())
                .unwrap(),
        )
        .await;
    res.error(405, "METHOD_NOT_ALLOWED");
}

#[tokio::test]
async fn the_openapi_document_describes_every_route() {
    let app = TestApp::spawn().await;
    let doc = app.get_openapi().await.ok(200);
    for r in ciam_api::all_routes() {
        let op = &doc["paths"][r.path][r.method.to_ascii_lowercase()];
        assert!(op.is_object(), "{} {} is not described", r.method, r.path);
    }
}

#[tokio::test]
async fn anything_but_a_live_session_token_is_unauthorized() {
    let app = TestApp::spawn().await;
    let ann = app.sign_up("annlee", "ann@example.com").await;
    let bob = app.sign_up("boblee", "bob@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let (uid, secret) = token.split_once('.').unwrap();
    assert_eq!(uid, ann);

    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let cases = [
        ("no header", None),
        ("garbage", Some("Bearer garbage".to_owned())),
        ("not a bearer", Some(format!("Basic {token}"))),
        ("empty bearer", Some("Bearer ".to_owned())),
        (
            "short secret",
            Some(format!("Bearer {uid}.{}", b64(&[1; 31]))),
        ),
        (
            "long secret",
            Some(format!("Bearer {uid}.{}", b64(&[1; 33]))),
        ),
        (
            "short user id",
            Some(format!("Bearer {}.{secret}", &uid[1..])),
        ),
        (
            "a made-up secret",
            Some(format!("Bearer {uid}.{}", b64(&[7; 32]))),
        ),
        ("someone else's id", Some(format!("Bearer {bob}.{secret}"))),
        (
            "an unknown id",
            Some(format!("Bearer {}.{secret}", new_user_id())),
        ),
    ];
    for (case, auth) in cases {
        let mut b = request(Method::GET, "/auth/info");
        if let Some(a) = auth {
            b = b.header("authorization", a);
        }
        let res = app.call(b.body(Body::empty()).unwrap()).await;
        assert_eq!(
            (res.status.as_u16(), res.reason()),
            (401, "AUTHORIZATION_FAILED".to_owned()),
            "{case}: {}",
            res.text
        );
    }
    app.get_info(&token).await.ok(200);
}
