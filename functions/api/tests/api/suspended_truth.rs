//! A proven owner learns the truth (issue 34 item 4, docs/console-design.md §4): a suspended
//! account's right password, right sign-in code or completed reset by code is answered
//! ACCOUNT_SUSPENDED, issues no session and counts no failure; a stranger's wrong password or
//! wrong code gets, byte for byte (status, headers, body), what it gets for an active account,
//! and a wrong password what an unknown name gets. On SQLite and DynamoDB Local.

use crate::helpers::{wrong_code, TestApp, TestResponse, NEW_PASSWORD, PASSWORD};
use ciam_core::console::Role;
use ciam_core::lock::LOCK_SECS;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Key, Store};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

const ANN: &str = "ann@example.com";
const BOB: &str = "bob@example.com";
const NOBODY: &str = "nobody@example.com";
const WRONG: &str = "Wr0ng!Password";

/// What a client sees of an answer, but the request's own id and the date.
fn seen(r: &TestResponse) -> (u16, String, BTreeMap<String, String>) {
    let headers = r
        .headers
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "x-request-id" | "date"))
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("?").to_owned()))
        .collect();
    (r.status.as_u16(), r.text.clone(), headers)
}

/// The failures counted on the sign-in name's identity item.
async fn fails(app: &TestApp, mail: &str) -> i64 {
    let key = Key::new(format!("MAIL#{mail}"), "UNIQUE");
    let item = app
        .store
        .get(&key)
        .await
        .expect("get")
        .expect("identity item");
    item.n("fails").unwrap_or(0)
}

/// The proven owner's answer: 403 ACCOUNT_SUSPENDED, no token, no cookie.
#[track_caller]
fn suspended(r: &TestResponse, what: &str) {
    let body = r.error(403, "ACCOUNT_SUSPENDED");
    assert!(body.get("token").is_none(), "{what}: {body}");
    assert!(r.headers.get("set-cookie").is_none(), "{what}");
}

async fn reset(app: &TestApp, account: &str, code: &str) -> TestResponse {
    let body = json!({ "account": account, "code": code, "password": NEW_PASSWORD,
        "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &body).await
}

async fn the_truth_for_the_owner_nothing_for_a_stranger(app: TestApp) {
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let ann = app.sign_up("annlee", ANN).await;
    app.sign_up("bobby", BOB).await;
    let p = format!("/admin/accounts/{ann}/suspend");
    let body = json!({ "reason": "a fraud report" });
    app.admin_call(axum::http::Method::POST, &p, Some(&operator), Some(&body))
        .await
        .ok(200);

    // A stranger's wrong password: alike for the suspended, an active and an unknown account.
    let on_ann = app.login_password(ANN, WRONG).await;
    on_ann.error(401, "PASSWORD_ERROR");
    assert_eq!(seen(&on_ann), seen(&app.login_password(BOB, WRONG).await));
    assert_eq!(
        seen(&on_ann),
        seen(&app.login_password(NOBODY, WRONG).await)
    );
    assert_eq!(fails(&app, ANN).await, 1, "a wrong password counts");

    // The owner's right password: the truth, as often as asked, never a failure or a lock.
    for _ in 0..7 {
        suspended(&app.login_password(ANN, PASSWORD).await, "password");
    }
    assert_eq!(fails(&app, ANN).await, 1, "a right password is no guess");

    // Wrong passwords still count and lock; the right one neither unlocks nor says more.
    for _ in 0..3 {
        app.login_password(ANN, WRONG)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    app.login_password(ANN, WRONG)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    app.login_password(ANN, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    app.clock.advance(LOCK_SECS + 1);

    // Code sign-in: a wrong code alike for the suspended and an active account; a right one
    // is used up and told the truth, counting nothing.
    let ann_code = app.fresh_code(ANN, "login").await;
    let bob_code = app.fresh_code(BOB, "login").await;
    let on_ann = app.login_code(ANN, &wrong_code(&ann_code)).await;
    on_ann.error(400, "CODE_ERROR");
    let on_bob = app.login_code(BOB, &wrong_code(&bob_code)).await;
    assert_eq!(seen(&on_ann), seen(&on_bob), "a wrong code");
    let before = fails(&app, ANN).await;
    suspended(&app.login_code(ANN, &ann_code).await, "code");
    assert_eq!(fails(&app, ANN).await, before, "a right code is no guess");
    let again = app.login_code(ANN, &ann_code).await;
    assert_ne!(again.status, 200, "the code was used up: {}", again.text);
    app.clock.advance(120);

    // Reset by code: a wrong code alike; the right one sets the password, then the truth.
    let ann_code = app.fresh_code(ANN, "resetPassword").await;
    let bob_code = app.fresh_code(BOB, "resetPassword").await;
    let on_ann = reset(&app, ANN, &wrong_code(&ann_code)).await;
    assert_eq!(on_ann.status, 400, "{}", on_ann.text);
    let on_bob = reset(&app, BOB, &wrong_code(&bob_code)).await;
    assert_eq!(seen(&on_ann), seen(&on_bob), "a wrong reset code");
    suspended(&reset(&app, ANN, &ann_code).await, "reset");
    suspended(
        &app.login_password(ANN, NEW_PASSWORD).await,
        "the new password",
    );
    app.login_password(ANN, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");

    // Reactivated (by an operator whose proof is fresh): the new password signs in.
    let (_, operator) = app.staffer("desk", Some(Role::Operator)).await;
    let p = format!("/admin/accounts/{ann}/reactivate");
    app.admin_call(axum::http::Method::POST, &p, Some(&operator), Some(&body))
        .await
        .ok(200);
    app.sign_in(ANN, NEW_PASSWORD).await;
}

#[tokio::test]
async fn a_suspended_owner_is_told_and_a_stranger_learns_nothing() {
    the_truth_for_the_owner_nothing_for_a_stranger(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_suspended_owner_is_told_and_a_stranger_learns_nothing() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "suspended_truth").await;
    the_truth_for_the_owner_nothing_for_a_stranger(app).await;
}
