//! Answers lost after the write committed (issue 20): the fault wrapper makes the write, then
//! loses its answer (`LostAfterCommit`: the product sends it again itself) or sends it again as
//! the SDK does (`LostThenRetried`). One wrong secret counts exactly once, the lock comes exactly
//! at the fifth real failure, a right secret is never refused for its own first use, and a right
//! secret whose sign-in ends in 503 costs the account nothing. On SQLite, and on DynamoDB Local
//! where the store's own token ring is what recognises the retry.

use crate::apps::{new_app, SERVICE};
use crate::faults::{app_with, dynamo_app_with};
use crate::helpers::{wrong_code, TestApp, PASSWORD};
use crate::two_factor::enrolled_in;
use crate::unavailable::assert_retry_later;
use ciam_core::lock::LOCK_SECS;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Key, Store};
use serde_json::json;
use std::sync::Arc;

const WRONG: &str = "Wr0ng!Password";

async fn fails_on(app: &TestApp, key: Key) -> i64 {
    let item = app.store.get(&key).await.expect("read");
    item.and_then(|i| i.n("fails")).unwrap_or(0)
}

/// Four wrong passwords, each meeting a lost answer on its attempt: four counted, not eight or
/// twelve; the fifth locks. Then ten right passwords turned away by a throttled session write:
/// each 503, none counted.
async fn passwords_count_once(app: &TestApp, faults: &Faults) {
    for (i, fault) in Fault::LOST.into_iter().enumerate() {
        let account = format!("once{i}@example.com");
        app.sign_up(&format!("once{i}"), &account).await;
        let key = Key::new(format!("MAIL#{account}"), "UNIQUE");
        for n in 1..=4 {
            faults.inject_on(Op::Update, "MAIL#", fault, 1);
            app.login_password(&account, WRONG)
                .await
                .error(401, "PASSWORD_ERROR");
            assert_eq!(faults.fired().last(), Some(&(Op::Update, fault)));
            assert_eq!(fails_on(app, key.clone()).await, n, "{fault:?}: try {n}");
        }
        faults.inject_on(Op::Update, "MAIL#", fault, 1);
        app.login_password(&account, WRONG)
            .await
            .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
        app.clock.advance(LOCK_SECS);
        app.sign_in(&account, PASSWORD).await;
    }

    let account = "right@example.com";
    app.sign_up("right", account).await;
    let key = Key::new(format!("MAIL#{account}"), "UNIQUE");
    for _ in 0..10 {
        // The session's write (beside the reset) throttled.
        faults.inject_on(Op::Put, "USER#", Fault::TxThrottled, 1);
        assert_retry_later(&app.login_password(account, PASSWORD).await);
    }
    assert_eq!(fails_on(app, key).await, 0, "no attempt was kept");
    for _ in 0..4 {
        app.login_password(account, WRONG)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    app.login_password(account, WRONG)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
}

/// A secret rotation and a ticket's burn whose answers were lost: the rotation shows its secret,
/// the ticket is still verified, once.
async fn a_ticket_is_not_refused_for_its_own_burn(app: &TestApp, faults: &Faults) {
    let admin = app.admin_token().await;
    let created = app.create_app(&admin, &new_app("Factory")).await.ok(201);
    let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
    let secret = created["appSecret"].as_str().expect("secret").to_owned();
    app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    // A rotation (one transaction with its audit entry) whose answer was lost: repeated by the
    // SDK under its token, it shows the new secret; lost for good, it answers 503 and the way
    // forward is to rotate again (docs/api.md "After a 503"), which shows a usable secret.
    let mut secret = secret;
    for fault in Fault::LOST {
        faults.inject(Op::Transact, fault, 1);
        let res = app
            .patch_app(&admin, &app_id, &json!({ "rotateSecret": true }))
            .await;
        assert_eq!(faults.fired().last(), Some(&(Op::Transact, fault)));
        let rotated = if fault == Fault::LostAfterCommit {
            assert_retry_later(&res);
            app.patch_app(&admin, &app_id, &json!({ "rotateSecret": true }))
                .await
                .ok(200)
        } else {
            res.ok(200)
        };
        secret = rotated["appSecret"].as_str().expect("secret").to_owned();
    }
    for fault in Fault::LOST {
        let t = app.issue_ticket(&user, &app_id, SERVICE).await.ok(200);
        let ticket = t["cTicket"].as_str().expect("cTicket");
        faults.inject_on(Op::Update, "TICKET#", fault, 1);
        let claims = app
            .verify_ticket(&app_id, &secret, ticket, SERVICE)
            .await
            .ok(200);
        assert_eq!(faults.fired().last(), Some(&(Op::Update, fault)));
        assert_eq!(claims["email"], "ann@example.com", "{fault:?}");
        app.verify_ticket(&app_id, &secret, ticket, SERVICE)
            .await
            .error(404, "TICKET_NOT_FOUND");
    }
}

#[tokio::test]
async fn one_wrong_password_counts_once_and_a_right_one_answered_503_costs_nothing() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    passwords_count_once(&app, &faults).await;
}

#[tokio::test]
async fn a_ticket_whose_burn_answer_was_lost_is_verified_once() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    a_ticket_is_not_refused_for_its_own_burn(&app, &faults).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_lost_answers_count_once_and_burn_once() {
    let local = Arc::new(DynamoLocal::start().await);
    let faults = Faults::new();
    let app = dynamo_app_with(&local, "lost-passwords", &faults).await;
    passwords_count_once(&app, &faults).await;
    let app = dynamo_app_with(&local, "lost-tickets", &faults).await;
    a_ticket_is_not_refused_for_its_own_burn(&app, &faults).await;
}

/// The authenticator code of a fresh proof whose acceptance committed, answer lost: accepted,
/// not refused as a used step; a wrong one under lost answers counts once on the account.
#[tokio::test]
async fn a_fresh_proof_is_not_refused_for_its_own_step_and_a_wrong_code_counts_once() {
    let faults = Faults::new();
    let e = enrolled_in(app_with(&faults).await).await;
    let user_key = |item: &str| Key::new(item.to_owned(), "PROFILE");
    let info = e.app.get_info(&e.token).await.ok(200);
    let user_id = info["userId"].as_str().expect("userId").to_owned();
    for fault in Fault::LOST {
        e.next_step();
        faults.inject_on(Op::Update, "USER#", fault, 1);
        e.app
            .totp_verify(&e.token, &json!({ "code": e.code() }))
            .await
            .ok(200);
        assert_eq!(faults.fired().last(), Some(&(Op::Update, fault)));
    }
    for n in 1..=4 {
        faults.inject_on(Op::Update, "USER#", Fault::LostThenRetried, 1);
        e.app
            .totp_verify(&e.token, &json!({ "code": wrong_code(&e.code()) }))
            .await
            .error(400, "TOTP_VERIFY_FAILED");
        let fails = fails_on(&e.app, user_key(&format!("USER#{user_id}"))).await;
        assert_eq!(fails, n, "wrong code {n}");
    }
}

/// A wrong sign-up code under lost answers counts once: the fifth wrong one burns the code.
#[tokio::test]
async fn a_wrong_code_under_lost_answers_counts_once() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let account = "codes@example.com";
    let code = app.fresh_code(account, "register").await;
    for n in 1..=4 {
        faults.inject_on(Op::Update, "CODE#", Fault::LOST[n % 2], 1);
        let body = crate::helpers::registration("codes", account, &wrong_code(&code));
        app.post_register(&body).await.error(400, "CODE_ERROR");
    }
    let body = crate::helpers::registration("codes", account, &wrong_code(&code));
    app.post_register(&body)
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");
}
