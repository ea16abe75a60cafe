//! Changing a password with the current one, and resetting it with a code.

use crate::helpers::{request, TestApp, NEW_PASSWORD, PASSWORD};
use axum::body::Body;
use axum::http::Method;
use serde_json::{json, Value};

fn change(old: &str, new: &str) -> Value {
    json!({ "oldPassword": old, "password": new, "confirmPassword": new })
}

#[tokio::test]
async fn changing_the_password_keeps_this_session_and_ends_the_others() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    let here = app.sign_in(mail, PASSWORD).await;
    let elsewhere = app.sign_in(mail, PASSWORD).await;

    app.patch_pwd(Some(&here), &change(PASSWORD, NEW_PASSWORD))
        .await
        .ok(200);
    app.get_info(&here).await.ok(200);
    app.get_info(&elsewhere)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.login_password(mail, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    app.sign_in(mail, NEW_PASSWORD).await;
    // The kept session still works for writes, which check the session generation.
    app.patch_info(&here, &json!({ "duty": "Engineer" }))
        .await
        .ok(200);
}

#[tokio::test]
async fn a_change_needs_the_right_current_password_and_a_different_new_one() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;

    app.patch_pwd(Some(&token), &change(PASSWORD, PASSWORD))
        .await
        .error(400, "PASSWORD_SAME_ERROR");
    app.patch_pwd(Some(&token), &change("Wr0ng!Password", NEW_PASSWORD))
        .await
        .error(401, "PASSWORD_ERROR");
    let body = app
        .patch_pwd(Some(&token), &change(PASSWORD, "weak"))
        .await
        .error(400, "PASSWORD_COMPLEXITY_ERROR");
    assert_eq!(body["field"], "password");
    app.patch_pwd(None, &change(PASSWORD, NEW_PASSWORD))
        .await
        .error(401, "AUTHORIZATION_FAILED");

    app.get_info(&token).await.ok(200);
    app.sign_in(mail, PASSWORD).await;
}

/// `PATCH /auth/pwd` reads its optional session with the parser of every other route: the
/// scheme is case-insensitive (`bearer`, `BEARER`), as on `GET /auth/info`.
#[tokio::test]
async fn a_change_reads_the_bearer_scheme_in_any_case_like_every_route() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;
    let with_scheme = |scheme: &str, p: &str, body: Option<Value>| {
        let method = if body.is_some() {
            Method::PATCH
        } else {
            Method::GET
        };
        request(method, p)
            .header("content-type", "application/json")
            .header("authorization", format!("{scheme} {token}"))
            .body(body.map_or(Body::empty(), |b| Body::from(b.to_string())))
            .unwrap()
    };
    for scheme in ["bearer", "BEARER"] {
        app.call(with_scheme(scheme, "/auth/info", None))
            .await
            .ok(200);
    }
    app.call(with_scheme(
        "bearer",
        "/auth/pwd",
        Some(change(PASSWORD, NEW_PASSWORD)),
    ))
    .await
    .ok(200);
    app.call(with_scheme(
        "BEARER",
        "/auth/pwd",
        Some(change(NEW_PASSWORD, PASSWORD)),
    ))
    .await
    .ok(200);
    app.sign_in(mail, PASSWORD).await;
}

#[tokio::test]
async fn a_reset_by_code_ends_every_session_and_the_new_password_works() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    let tokens = [
        app.sign_in(mail, PASSWORD).await,
        app.sign_in(mail, PASSWORD).await,
    ];

    let code = app.fresh_code(mail, "resetPassword").await;
    let reset = json!({ "account": mail, "code": code, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &reset).await.ok(200);

    for t in &tokens {
        app.get_info(t).await.error(401, "AUTHORIZATION_FAILED");
    }
    app.login_password(mail, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    app.sign_in(mail, NEW_PASSWORD).await;
    app.patch_pwd(None, &reset)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
}
