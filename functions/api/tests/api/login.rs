//! Sign-in: one answer for every kind of wrong, the account lock, and the accounts that need
//! another step.

use crate::helpers::{new_user_id, password_hash, wrong_code, TestApp, NEW_PASSWORD, PASSWORD};
use ciam_core::user::User;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::json;
use std::sync::Arc;

fn user(name: &str, mail: &str) -> User {
    User {
        id: new_user_id(),
        user_name: name.into(),
        mail: Some(mail.into()),
        advertisement: "unsubscribe".into(),
        created_at: 1,
        ..User::default()
    }
}

#[tokio::test]
async fn unknown_accounts_wrong_passwords_and_deactivated_accounts_look_the_same() {
    let app = TestApp::spawn().await;
    app.sign_up("annlee", "ann@example.com").await;
    app.seed_user(&User {
        deactivated: true,
        pwd_hash: Some(password_hash(PASSWORD).await),
        ..user("gone", "gone@example.com")
    })
    .await;

    let unknown = app.login_password("nobody@example.com", PASSWORD).await;
    let wrong = app.login_password("ann@example.com", NEW_PASSWORD).await;
    let deactivated = app.login_password("gone@example.com", PASSWORD).await;
    let not_an_account = app.login_password("not an account", PASSWORD).await;
    let body = unknown.error(401, "PASSWORD_ERROR");
    for (case, res) in [
        ("wrong", &wrong),
        ("deactivated", &deactivated),
        ("garbage", &not_an_account),
    ] {
        assert_eq!(
            (res.status, res.json()),
            (unknown.status, body.clone()),
            "{case}"
        );
    }
    app.sign_in("ann@example.com", PASSWORD).await;
}

#[tokio::test]
async fn five_wrong_passwords_lock_the_account_for_fifteen_minutes_without_extension() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;

    for n in 1..=4 {
        let res = app.login_password(mail, NEW_PASSWORD).await;
        assert_eq!(res.reason(), "PASSWORD_ERROR", "try {n}: {}", res.text);
    }
    let locked_at = app.now();
    let body = app
        .login_password(mail, NEW_PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    let until = (locked_at + 900).to_string();
    assert_eq!(
        body["message"],
        until.as_str(),
        "the unlock time in unix seconds"
    );

    app.clock.advance(600);
    for pw in [NEW_PASSWORD, NEW_PASSWORD, PASSWORD] {
        let body = app
            .login_password(mail, pw)
            .await
            .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
        assert_eq!(body["message"], until.as_str(), "the lock does not move");
    }
    app.clock.advance(299);
    app.login_password(mail, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    app.clock.advance(1);
    app.sign_in(mail, PASSWORD).await;
}

#[tokio::test]
async fn wrong_sign_in_codes_count_on_the_same_counter_as_passwords() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    for _ in 0..3 {
        app.login_password(mail, NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    let code = app.fresh_code(mail, "login").await;
    app.login_code(mail, &wrong_code(&code))
        .await
        .error(400, "CODE_ERROR");
    let body = app
        .login_code(mail, &wrong_code(&code))
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    assert_eq!(body["message"], (app.now() + 900).to_string().as_str());
    app.login_code(mail, &code)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
}

#[tokio::test]
async fn a_locked_account_asking_for_a_sign_in_code_is_told_the_lock_and_sent_no_code() {
    locked_account_asks_for_a_sign_in_code(TestApp::spawn().await).await;
}

/// The same on the production engine: the lock check rides in the send's transaction as a
/// condition check, true of an absent item.
#[tokio::test]
async fn on_dynamodb_a_locked_account_asking_for_a_sign_in_code_is_told_the_lock() {
    let local = Arc::new(DynamoLocal::start().await);
    // The test holds the server: it stops when the last handle goes.
    let server = local.clone();
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local.store("locked-code", Arc::new(clock)).await);
            store
        })
    })
    .await;
    locked_account_asks_for_a_sign_in_code(app).await;
    drop(server);
}

async fn locked_account_asks_for_a_sign_in_code(app: TestApp) {
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    for _ in 0..4 {
        app.login_password(mail, NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    let lock = app
        .login_password(mail, NEW_PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    let until = lock["message"].clone();
    assert_eq!(until, (app.now() + 900).to_string().as_str());

    app.clock.advance(60);
    let sent_before = app.outbox.messages().len();
    let body = app
        .send_code(mail, "login")
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    assert_eq!(
        body["message"], until,
        "the same lock, with its unlock time"
    );
    assert_eq!(app.outbox.messages().len(), sent_before, "no code was sent");
    app.login_code(mail, "123456")
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");

    // Other purposes are not sign-ins: the reset code, the way out of a lock, still goes.
    app.send_code(mail, "resetPassword").await.ok(200);
    // An unknown name is never locked, so it cannot be told from an unlocked account.
    app.send_code("nobody@example.com", "login").await.ok(200);

    app.clock.advance(840);
    let code = app.fresh_code(mail, "login").await;
    app.login_code(mail, &code).await.ok(200);
}

#[tokio::test]
async fn a_password_reset_by_code_lifts_the_lock_at_once() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.sign_up("annlee", mail).await;
    for _ in 0..5 {
        app.login_password(mail, NEW_PASSWORD).await;
    }
    app.login_password(mail, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");

    let code = app.fresh_code(mail, "resetPassword").await;
    let reset = json!({ "account": mail, "code": code, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &reset).await.ok(200);
    app.sign_in(mail, NEW_PASSWORD).await;
}

#[tokio::test]
async fn an_account_with_two_factor_gets_a_challenge_and_no_session() {
    let app = TestApp::spawn().await;
    let u = User {
        enable_totp: true,
        pwd_hash: Some(password_hash(PASSWORD).await),
        ..user("secure", "secure@example.com")
    };
    app.seed_user(&u).await;

    let res = app.login_password("secure@example.com", PASSWORD).await;
    let body = res.error(403, "NEED_TOTP_VERIFY");
    assert!(
        body["challenge"].as_str().is_some_and(|c| c.len() >= 32),
        "{}",
        res.text
    );
    assert!(body.get("token").is_none(), "{}", res.text);
    assert!(
        app.sessions_of(&u.id).await.is_empty(),
        "no session was stored"
    );
}

#[tokio::test]
async fn a_staff_account_without_a_password_is_told_to_set_one() {
    let app = TestApp::spawn().await;
    let mail = "li.lei@staff.ciam.example";
    app.seed_user(&User {
        eiam_uid: Some("E1001".into()),
        ..user("lilei", mail)
    })
    .await;
    app.login_password(mail, PASSWORD)
        .await
        .error(403, "EIAM_PASSWORD_UNSET");

    // The recovery path: a first password set by a code sent to the staff mail.
    let code = app.fresh_code(mail, "resetPassword").await;
    let reset =
        json!({ "account": mail, "code": code, "password": PASSWORD, "confirmPassword": PASSWORD });
    app.patch_pwd(None, &reset).await.ok(200);
    let token = app.sign_in(mail, PASSWORD).await;
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(
        (&info["isEiamUser"], &info["tag"]["eiamUid"]),
        (&json!(true), &json!("E1001"))
    );

    // Once set, the company mail cannot reset it again (spec §6): the code is right, the
    // reset is refused, and the password stays.
    app.clock.advance(61);
    let code = app.fresh_code(mail, "resetPassword").await;
    let again = json!({ "account": mail, "code": code, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &again)
        .await
        .error(403, "EIAM_MAIL_PERMISSION_DENIED");
    app.sign_in(mail, PASSWORD).await;
}
