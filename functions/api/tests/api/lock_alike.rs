//! The lock reveals nothing (issue 20): a sign-in name nobody registered answers repeated
//! failures exactly as a real account does, try by try (status, reason, message with the unlock
//! time, headers), on SQLite and on DynamoDB Local; its count lives on a short-lived item that
//! leaves nothing behind and never stands in the way of a registration.

use crate::helpers::{registration, TestApp, TestResponse, PASSWORD};
use ciam_core::lock::LOCK_SECS;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Key, Store};
use std::collections::BTreeMap;
use std::sync::Arc;

const WRONG: &str = "Wr0ng!Password";
const REAL: &str = "real@example.com";
const NOBODY: &str = "nobody@example.com";

/// What a client sees of an answer, but the request's own id.
fn seen(r: &TestResponse) -> (u16, String, BTreeMap<String, String>) {
    let headers = r
        .headers
        .iter()
        .filter(|(n, _)| !matches!(n.as_str(), "x-request-id" | "date"))
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or("?").to_owned()))
        .collect();
    (r.status.as_u16(), r.text.clone(), headers)
}

/// `n` wrong passwords for the real account and for the unknown name, compared try by try;
/// returns the last answer.
async fn alike(app: &TestApp, n: usize, what: &str) -> TestResponse {
    let mut last = None;
    for i in 1..=n {
        let known = app.login_password(REAL, WRONG).await;
        let unknown = app.login_password(NOBODY, WRONG).await;
        assert_eq!(seen(&known), seen(&unknown), "{what}: try {i}");
        last = Some(known);
    }
    last.unwrap()
}

fn identity_key(mail: &str) -> Key {
    Key::new(format!("MAIL#{mail}"), "UNIQUE")
}

async fn the_lock_reveals_nothing(app: TestApp) {
    app.sign_up("real", REAL).await;

    // Four failures, then a quarter of an hour of quiet: both counts start again.
    alike(&app, 4, "before the quiet").await;
    app.clock.advance(LOCK_SECS + 1);
    alike(&app, 4, "after the quiet").await;
    // The fifth failure in a row locks both, with the same unlock time; the sixth is told it.
    let fifth = alike(&app, 1, "the fifth").await;
    let until = fifth.error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT")["message"].clone();
    assert_eq!(until, (app.now() + LOCK_SECS).to_string().as_str());
    let sixth = alike(&app, 1, "the sixth").await;
    assert_eq!(
        sixth.error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT")["message"],
        until
    );
    // Sign-in by code and asking for a sign-in code are told the same lock.
    for account in [REAL, NOBODY] {
        let r = app.login_code(account, "123456").await;
        assert_eq!(
            r.error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT")["message"],
            until
        );
        let r = app.send_code(account, "login").await;
        assert_eq!(
            r.error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT")["message"],
            until
        );
    }

    // The unknown name's item goes with its lock: nothing lasts for a name nobody registered.
    assert!(app
        .store
        .get(&identity_key(NOBODY))
        .await
        .unwrap()
        .is_some());
    app.clock.advance(LOCK_SECS);
    assert_eq!(app.store.get(&identity_key(NOBODY)).await.unwrap(), None);
    app.sign_in(REAL, PASSWORD).await;

    // A name with failures counted (and locked) can still be registered, and signs in.
    for _ in 0..5 {
        app.login_password(NOBODY, WRONG).await;
    }
    let code = app.fresh_code(NOBODY, "register").await;
    app.post_register(&registration("nobody", NOBODY, &code))
        .await
        .ok(201);
    app.sign_in(NOBODY, PASSWORD).await;
}

#[tokio::test]
async fn six_wrong_passwords_for_an_unknown_name_and_a_real_account_answer_alike() {
    the_lock_reveals_nothing(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_six_wrong_passwords_for_an_unknown_name_and_a_real_account_answer_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    let server = local.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local.store("lock-alike", Arc::new(clock)).await);
            store
        })
    })
    .await;
    the_lock_reveals_nothing(app).await;
    drop(server);
}
