//! The proof-of-work captcha that guards every code sent.

use crate::helpers::{captcha_payload, solve, TestApp};
use serde_json::{json, Value};

async fn ask(app: &TestApp, account: &str, captcha: Value) -> crate::helpers::TestResponse {
    app.post_identity(&json!({ "account": account, "purpose": "register", "captcha": captcha }))
        .await
}

#[tokio::test]
async fn the_challenge_is_altcha_v1_and_expires_in_five_minutes() {
    let app = TestApp::spawn().await;
    let ch = app.get_captcha().await.ok(200);
    let keys: Vec<&String> = ch.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        ["algorithm", "challenge", "maxnumber", "salt", "signature"]
    );
    let salt = ch["salt"].as_str().unwrap();
    assert!(
        salt.contains(&format!("expires={}", app.now() + 300)),
        "{salt}"
    );
    assert_ne!(
        app.get_captcha().await.ok(200)["salt"],
        ch["salt"],
        "fresh salts"
    );
}

#[tokio::test]
async fn a_missing_captcha_is_not_found_and_sends_nothing() {
    let app = TestApp::spawn().await;
    let res = app
        .post_identity(&json!({ "account": "ann@example.com", "purpose": "register" }))
        .await;
    res.error(400, "VERIFYCAPTCHA_NOT_FOUND");
    ask(&app, "ann@example.com", json!(""))
        .await
        .error(400, "VERIFYCAPTCHA_NOT_FOUND");
    ask(&app, "ann@example.com", json!("not base64 at all!"))
        .await
        .error(400, "VERIFYCAPTCHA_NOT_FOUND");
    assert!(app.outbox.messages().is_empty());
}

#[tokio::test]
async fn a_wrong_number_or_a_tampered_signature_fails_verification() {
    let app = TestApp::spawn().await;
    let ch = app.get_captcha().await.ok(200);
    let n = solve(&ch);
    let sig = ch["signature"].as_str().unwrap();

    let wrong_number = captcha_payload(&ch, (n + 1) % 1001, sig);
    ask(&app, "ann@example.com", json!(wrong_number))
        .await
        .error(400, "VERIFYCAPTCHA_ERROR");

    let mut tampered = sig.to_owned();
    let last = if tampered.ends_with('0') { "1" } else { "0" };
    tampered.replace_range(tampered.len() - 1.., last);
    ask(
        &app,
        "ann@example.com",
        json!(captcha_payload(&ch, n, &tampered)),
    )
    .await
    .error(400, "VERIFYCAPTCHA_ERROR");
    assert!(app.outbox.messages().is_empty());

    // The honest solution of the same challenge passes.
    ask(&app, "ann@example.com", json!(captcha_payload(&ch, n, sig)))
        .await
        .ok(200);
}

#[tokio::test]
async fn a_solution_is_good_for_one_request_only() {
    let app = TestApp::spawn().await;
    let captcha = app.solved_captcha().await;
    ask(&app, "ann@example.com", json!(captcha)).await.ok(200);
    ask(&app, "bob@example.com", json!(captcha))
        .await
        .error(400, "VERIFYCAPTCHA_NOT_FOUND");
    assert_eq!(app.outbox.messages().len(), 1);
}

#[tokio::test]
async fn a_solution_expires_after_five_minutes() {
    let app = TestApp::spawn().await;
    let in_time = app.solved_captcha().await;
    let too_late = app.solved_captcha().await;
    app.clock.advance(299);
    ask(&app, "ann@example.com", json!(in_time)).await.ok(200);
    app.clock.advance(1);
    ask(&app, "bob@example.com", json!(too_late))
        .await
        .error(400, "VERIFYCAPTCHA_NOT_FOUND");
}
