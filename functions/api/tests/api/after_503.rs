//! A 503 leaves a way forward (issue 20, point 6): a write that committed but whose answer was
//! lost (`Fault::LostAfterCommit`: the client sees 503 SERVICE_UNAVAILABLE with `Retry-After`)
//! never leaves the person stuck. A code send may be repeated at once (the resend hold starts
//! from a delivered code); a used code is a tombstone, never usable twice, and replaced at once
//! by a new send; a registration sent again answers that the account exists, so the person
//! signs in, while a stranger learns nothing more than before; backup codes are regenerated
//! at once, two-factor is on after a lost enable, and an app's lost secret is replaced by a
//! rotation. Over SQLite through `ciam_store::faults`, and over DynamoDB Local for sending and
//! registering.

use crate::apps::{new_app, ticket, World, SERVICE};
use crate::faults::{app_with, dynamo_app_with, met};
use crate::helpers::{registration, wrong_code, TestApp, PASSWORD};
use crate::two_factor::{enrolled_in, secret_of};
use crate::unavailable::assert_retry_later;
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Query, Store};
use serde_json::Value;
use std::sync::Arc;

/// A send whose transaction committed but whose answer was lost delivered nothing: asking
/// again at once is accepted, and the new code signs up. Once a code is delivered, the hold
/// applies as before.
async fn a_lost_send_may_be_repeated_at_once(app: &TestApp, faults: &Faults) {
    let mail = "resend@example.com";
    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.send_code(mail, "register").await);
    met(faults, Op::Transact, Fault::LostAfterCommit);
    assert!(
        app.outbox.last_code(mail, "register").is_none(),
        "nothing was delivered"
    );

    let code = app.fresh_code(mail, "register").await;
    app.send_code(mail, "register")
        .await
        .error(429, "VERIFYCODE_SENDING_TOO_QUICKLY");
    app.post_register(&registration("resender", mail, &code))
        .await
        .ok(201);
    app.sign_in(mail, PASSWORD).await;
}

/// A registration whose transaction committed but whose answer was lost, sent again with the
/// same body, answers that the address is registered (as to whoever holds its code), and the
/// password signs in.
async fn a_lost_registration_answers_exists_to_the_same_body(
    app: &TestApp,
    faults: &Faults,
    (user_name, account): (&str, &str),
    exists: &str,
) {
    let code = app.fresh_code(account, "register").await;
    let body = registration(user_name, account, &code);
    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.post_register(&body).await);
    met(faults, Op::Transact, Fault::LostAfterCommit);
    app.post_register(&body).await.error(409, exists);
    app.post_register(&body).await.error(409, exists);
    let token = app.sign_in(account, PASSWORD).await;
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["userName"], user_name, "{info}");
}

#[tokio::test]
async fn a_send_whose_answer_was_lost_may_be_repeated_at_once_and_the_new_code_works() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    a_lost_send_may_be_repeated_at_once(&app, &faults).await;
}

#[tokio::test]
async fn a_used_code_cannot_be_used_twice_and_a_new_one_may_be_sent_at_once() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let register = app.fresh_code(mail, "register").await;
    app.post_register(&registration("annlee", mail, &register))
        .await
        .ok(201);
    // The used sign-up code is no code at all now, for a stranger's account as for another.
    app.post_register(&registration("other", mail, &register))
        .await
        .error(409, "MAIL_EXIST");
    app.post_register(&registration("other", "else@example.com", &register))
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");

    let code = app.fresh_code(mail, "login").await;
    app.login_code(mail, &code).await.ok(200);
    app.login_code(mail, &code)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    // No resend hold on a used code: a new one is sent at once, and it works.
    let again = app.fresh_code(mail, "login").await;
    assert_eq!(app.outbox.messages().len(), 3);
    app.login_code(mail, &again).await.ok(200);

    // The same for a code used to reset the password.
    let reset = app.fresh_code(mail, "resetPassword").await;
    let form = |c: &str| serde_json::json!({ "account": mail, "code": c, "password": "An0ther#Secret9", "confirmPassword": "An0ther#Secret9" });
    app.patch_pwd(None, &form(&reset)).await.ok(200);
    app.patch_pwd(None, &form(&reset))
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    let reset = app.fresh_code(mail, "resetPassword").await;
    app.patch_pwd(None, &form(&reset))
        .await
        .error(400, "PASSWORD_SAME_ERROR");
}

#[tokio::test]
async fn a_code_used_on_its_own_whose_answer_was_lost_is_recognised_as_this_requests_use() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    // A sign-in code for an address with no account is used on its own (no transaction).
    let mail = "nobody@example.com";
    let code = app.fresh_code(mail, "login").await;
    faults.inject_on(Op::Update, "CODE#", Fault::LostThenRetried, 1);
    app.login_code(mail, &code)
        .await
        .error(404, "MAIL_NOT_FOUND");
    met(&faults, Op::Update, Fault::LostThenRetried);
    // Used: a second try is told there is no code.
    app.login_code(mail, &code)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
}

#[tokio::test]
async fn a_registration_whose_answer_was_lost_answers_exists_and_the_password_signs_in() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    a_lost_registration_answers_exists_to_the_same_body(
        &app,
        &faults,
        ("lostmail", "lost@example.com"),
        "MAIL_EXIST",
    )
    .await;
    let app = app_with(&faults).await;
    a_lost_registration_answers_exists_to_the_same_body(
        &app,
        &faults,
        ("lostphone", "13900139000"),
        "PHONE_EXIST",
    )
    .await;
}

#[tokio::test]
async fn after_a_lost_registration_a_stranger_without_the_code_learns_nothing() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let mail = "lost@example.com";
    let code = app.fresh_code(mail, "register").await;
    let body = registration("lostanswer", mail, &code);
    // Before: a wrong code is a wrong code (and counts on the code: one try of five).
    app.post_register(&registration("stranger", mail, &wrong_code(&code)))
        .await
        .error(400, "CODE_ERROR");
    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.post_register(&body).await);
    app.post_register(&body).await.error(409, "MAIL_EXIST");

    // After: a wrong code finds no code, as after any registration; each guess counts on the
    // used code, and once five have met it the right one is no longer told apart either.
    let mut guess = code.clone();
    for n in 2..=4 {
        guess = wrong_code(&guess);
        let res = app
            .post_register(&registration("stranger", mail, &guess))
            .await;
        assert_eq!(
            res.reason(),
            "VERIFYCODE_NOT_FOUND",
            "guess {n}: {}",
            res.text
        );
    }
    app.post_register(&body).await.error(409, "MAIL_EXIST");
    app.post_register(&registration("stranger", mail, &wrong_code(&guess)))
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    app.post_register(&body)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    app.sign_in(mail, PASSWORD).await;

    // The used code is kept five minutes: after that the same body finds no code.
    let other = "later@example.com";
    let code = app.fresh_code(other, "register").await;
    let body = registration("later", other, &code);
    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.post_register(&body).await);
    app.clock.advance(299);
    app.post_register(&body).await.error(409, "MAIL_EXIST");
    app.clock.advance(1);
    app.post_register(&body)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    app.sign_in(other, PASSWORD).await;
}

#[tokio::test]
async fn a_registration_retried_by_the_sdk_after_a_lost_answer_is_created() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let mail = "retried@example.com";
    let code = app.fresh_code(mail, "register").await;
    faults.inject(Op::Transact, Fault::LostThenRetried, 1);
    app.post_register(&registration("retried", mail, &code))
        .await
        .ok(201);
    met(&faults, Op::Transact, Fault::LostThenRetried);
    app.sign_in(mail, PASSWORD).await;
}

/// The generations of `user_id`'s backup-code items.
async fn backup_gens(app: &TestApp, user_id: &str) -> Vec<i64> {
    let items = app
        .store
        .query(Query::partition(ciam_core::user::user_pk(user_id)).prefix("BACKUP#"))
        .await
        .expect("query");
    let mut gens: Vec<i64> = items.iter().filter_map(|i| i.n("gen")).collect();
    gens.sort_unstable();
    gens.dedup();
    gens
}

#[tokio::test]
async fn backup_codes_whose_answer_was_lost_are_regenerated_at_once() {
    let faults = Faults::new();
    let e = enrolled_in(app_with(&faults).await).await;
    let user_id = e.app.owner_of("tfa@example.com").await.expect("owner");
    let gen = |item: Option<ciam_store::Item>| item.and_then(|i| i.n("backupGen"));
    let before = gen(e.app.user_item(&user_id).await).expect("backupGen");

    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&e.app.totp_backup_codes(&e.token).await);
    met(&faults, Op::Transact, Fault::LostAfterCommit);
    // Committed: the codes nobody saw are the account's now, and the old ones are not.
    assert_eq!(gen(e.app.user_item(&user_id).await), Some(before + 1));

    let body = e.app.totp_backup_codes(&e.token).await.ok(200);
    let codes: Vec<String> = body["backupCodes"]
        .as_array()
        .expect("codes")
        .iter()
        .map(|c| c.as_str().expect("code").to_owned())
        .collect();
    assert_eq!(codes.len(), 10);
    // The lost generation is neither valid nor kept: only the new codes remain.
    assert_eq!(gen(e.app.user_item(&user_id).await), Some(before + 2));
    assert_eq!(backup_gens(&e.app, &user_id).await, vec![before + 2]);

    let challenge = e.challenge().await;
    e.app
        .unlock_code(&challenge, &e.backup[0])
        .await
        .error(400, "UNLOCKCODE_NOT_FOUND");
    let challenge = e.challenge().await;
    e.app.unlock_code(&challenge, &codes[0]).await.ok(200);
}

#[tokio::test]
async fn a_two_factor_enable_whose_answer_was_lost_is_on_and_new_backup_codes_work() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let mail = "enable@example.com";
    app.sign_up("enabler", mail).await;
    let token = app.sign_in(mail, PASSWORD).await;
    let url = app.get_totp_url(&token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let code = code_at(&secret_of(&url), app.now().div_euclid(STEP_SECS));

    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.totp_enable(&token, &code).await);
    met(&faults, Op::Transact, Fault::LostAfterCommit);
    // Committed: two-factor is on and this session goes on (it was re-stamped with it).
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(info["enableTotp"], true, "{info}");
    app.totp_enable(&token, &code)
        .await
        .error(409, "USER_TOTP_ENABLED");

    let body = app.totp_backup_codes(&token).await.ok(200);
    let backup = body["backupCodes"][0]
        .as_str()
        .expect("a backup code")
        .to_owned();
    let challenge = app
        .login_password(mail, PASSWORD)
        .await
        .error(403, "NEED_TOTP_VERIFY")["challenge"]
        .as_str()
        .expect("challenge")
        .to_owned();
    app.unlock_code(&challenge, &backup).await.ok(200);
}

#[tokio::test]
async fn an_app_created_with_a_lost_answer_gets_a_usable_secret_by_rotation() {
    let faults = Faults::new();
    let app = app_with(&faults).await;
    let admin = app.admin_token().await;

    faults.inject(Op::Transact, Fault::LostAfterCommit, 1);
    assert_retry_later(&app.create_app(&admin, &new_app("Factory")).await);
    met(&faults, Op::Transact, Fault::LostAfterCommit);
    // Committed: the name is taken, and the registry lists the app.
    app.create_app(&admin, &new_app("Factory"))
        .await
        .error(409, "APPNAME_EXIST");
    let list = app.list_registry(&admin).await.ok(200);
    let listed: Vec<&Value> = list["apps"].as_array().expect("apps").iter().collect();
    assert_eq!(listed.len(), 1, "{list}");
    assert_eq!(listed[0]["name"]["en-US"], "Factory");
    let app_id = listed[0]["appId"].as_str().expect("appId").to_owned();

    let rotated = app
        .patch_app(
            &admin,
            &app_id,
            &serde_json::json!({ "rotateSecret": true }),
        )
        .await
        .ok(200);
    let secret = rotated["appSecret"]
        .as_str()
        .expect("a new secret")
        .to_owned();
    let user_id = app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    let w = World {
        app,
        admin,
        app_id,
        secret,
        user,
        user_id,
    };
    let c = ticket(&w, SERVICE).await;
    let verified = w
        .app
        .verify_ticket(&w.app_id, &w.secret, &c, SERVICE)
        .await
        .ok(200);
    assert!(verified.to_string().contains(&w.user_id), "{verified}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn on_dynamodb_a_lost_send_may_be_repeated_and_a_lost_registration_answers_exists() {
    let local = Arc::new(DynamoLocal::start().await);
    let faults = Faults::new();
    let app = dynamo_app_with(&local, "after-503-send", &faults).await;
    a_lost_send_may_be_repeated_at_once(&app, &faults).await;
    let app = dynamo_app_with(&local, "after-503-register", &faults).await;
    a_lost_registration_answers_exists_to_the_same_body(
        &app,
        &faults,
        ("lostmail", "lost@example.com"),
        "MAIL_EXIST",
    )
    .await;
    a_lost_registration_answers_exists_to_the_same_body(
        &app,
        &faults,
        ("lostphone", "13900139000"),
        "PHONE_EXIST",
    )
    .await;
    let mail = "retried@example.com";
    let code = app.fresh_code(mail, "register").await;
    faults.inject(Op::Transact, Fault::LostThenRetried, 1);
    app.post_register(&registration("retried", mail, &code))
        .await
        .ok(201);
    met(&faults, Op::Transact, Fault::LostThenRetried);
}
