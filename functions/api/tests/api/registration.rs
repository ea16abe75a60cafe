//! Sign-up: all or nothing, and nothing that tells a stranger which addresses are registered.

use crate::helpers::{registration, wrong_code, TestApp};
use serde_json::json;

#[tokio::test]
async fn a_taken_username_leaves_nothing_behind_and_the_code_still_works() {
    let app = TestApp::spawn().await;
    let first = app.sign_up("annlee", "ann@example.com").await;
    let writes_before = app.store.written().len();

    let mail = "bob@example.com";
    let code = app.fresh_code(mail, "register").await;
    let writes_after_send = app.store.written().len();
    let body = app
        .post_register(&registration("AnnLee", mail, &code))
        .await
        .error(409, "USERNAME_EXIST");
    assert_eq!(body["field"], "userName");

    assert!(writes_after_send > writes_before, "sending a code writes");
    assert_eq!(
        app.store.written().len(),
        writes_after_send,
        "the refused registration wrote nothing"
    );
    assert_eq!(
        app.owner_of(mail).await,
        None,
        "no uniqueness item for the mail"
    );
    assert_eq!(
        app.owner_of("annlee").await.as_deref(),
        Some(first.as_str())
    );
    let profiles: Vec<_> = app
        .store
        .written()
        .into_iter()
        .filter(|k| k.sk == "PROFILE")
        .collect();
    assert_eq!(
        profiles.len(),
        1,
        "only the first user was ever written: {profiles:?}"
    );

    let created = app
        .post_register(&registration("boblee", mail, &code))
        .await
        .ok(201);
    let second = created["userId"].as_str().unwrap();
    assert_eq!(app.owner_of(mail).await.as_deref(), Some(second));
    assert!(app.user_item(second).await.is_some());
}

#[tokio::test]
async fn a_registered_mail_is_revealed_only_to_whoever_holds_its_code() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    app.clock.advance(60);

    let code = app.fresh_code(mail, "register").await;
    app.post_register(&registration("carl", mail, &wrong_code(&code)))
        .await
        .error(400, "CODE_ERROR");
    app.post_register(&registration("carl", mail, &code))
        .await
        .error(409, "MAIL_EXIST");
    assert_eq!(
        app.owner_of("carl").await,
        None,
        "the username was not taken"
    );
}

#[tokio::test]
async fn a_registered_phone_is_revealed_only_to_whoever_holds_its_code() {
    let app = TestApp::spawn().await;
    let phone = "13900139000";
    app.sign_up("annlee", phone).await;
    app.clock.advance(60);

    let code = app.fresh_code(phone, "register").await;
    app.post_register(&registration("carl", phone, &wrong_code(&code)))
        .await
        .error(400, "CODE_ERROR");
    app.post_register(&registration("carl", phone, &code))
        .await
        .error(409, "PHONE_EXIST");
}

#[tokio::test]
async fn asking_for_a_code_answers_alike_for_registered_and_unknown_identities() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    app.sign_up("wang", "13800138000").await;
    app.clock.advance(60);

    for purpose in ["register", "login", "resetPassword"] {
        for (known, unknown) in [
            ("ann@example.com", "nobody@example.com"),
            ("13800138000", "13700137000"),
        ] {
            let a = app.send_code(known, purpose).await;
            let b = app.send_code(unknown, purpose).await;
            assert_eq!(
                (a.status, &a.text),
                (b.status, &b.text),
                "{purpose}: {known} vs {unknown}"
            );
            assert_eq!(a.ok(200), json!({ "sent": true, "resendAfter": 60 }));
        }
    }
    assert_eq!(
        app.outbox.messages().len(),
        2 + 12,
        "every request sent a code"
    );
}
