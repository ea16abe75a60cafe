//! Account changes: marketing opt-in, binding mail and phone, deactivation.

use crate::helpers::{TestApp, PASSWORD};
use ciam_core::Notice;
use serde_json::json;

#[tokio::test]
async fn the_marketing_opt_in_is_stored_and_shown() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    assert_eq!(app.get_info(&token).await.ok(200)["isSubscribe"], false);
    let info = app.patch_advertisement(&token, "subscribe").await.ok(200);
    assert_eq!(
        (
            info["advertisement"].as_str(),
            info["isSubscribe"].as_bool()
        ),
        (Some("subscribe"), Some(true))
    );
    assert_eq!(app.get_info(&token).await.ok(200)["isSubscribe"], true);
    app.patch_advertisement(&token, "unsubscribe").await.ok(200);
    let v = app
        .patch_advertisement(&token, "maybe")
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "advertisement");
}

#[tokio::test]
async fn replacing_the_mail_moves_the_sign_in_and_tells_the_old_address() {
    let app = TestApp::spawn().await;
    let uid = app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let code = app.fresh_code("new@example.com", "bind").await;
    let info = app
        .patch_mail(&token, "new@example.com", &code)
        .await
        .ok(200);
    assert_eq!(info["mail"], "ne***@example.com");
    assert_eq!(
        app.owner_of("new@example.com").await.as_deref(),
        Some(uid.as_str())
    );
    assert_eq!(
        app.owner_of("ann@example.com").await,
        None,
        "the old address is released"
    );
    app.login_password("ann@example.com", PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    app.sign_in("new@example.com", PASSWORD).await;
    let notices = app.outbox.notices();
    assert_eq!(notices.len(), 1);
    assert_eq!(notices[0].to.as_str(), "ann@example.com");
    assert_eq!(
        notices[0].notice,
        Notice::MailChanged {
            new: "ne***@example.com".into()
        }
    );
}

#[tokio::test]
async fn a_phone_can_be_bound_to_an_account_that_had_none() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let code = app.fresh_code("13800138000", "bind").await;
    let info = app
        .patch_phone(&token, "+86 138 0013 8000", &code)
        .await
        .ok(200);
    assert_eq!(info["phone"], "138****8000");
    app.sign_in("13800138000", PASSWORD).await;
    assert!(
        app.outbox.notices().is_empty(),
        "no previous number to tell"
    );
}

#[tokio::test]
async fn binding_refuses_the_same_address_a_taken_one_a_wrong_code_and_a_stale_proof() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    app.sign_up("bob", "bob@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let v = app
        .patch_mail(&token, "ann@example.com", "123456")
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(v["field"], "mail");
    let code = app.fresh_code("bob@example.com", "bind").await;
    app.patch_mail(&token, "bob@example.com", &code)
        .await
        .error(409, "MAIL_EXIST");
    let code = app.fresh_code("c@example.com", "bind").await;
    app.patch_mail(&token, "c@example.com", &crate::helpers::wrong_code(&code))
        .await
        .error(400, "CODE_ERROR");
    app.patch_mail(&token, "x@staff.ciam.example", &code)
        .await
        .error(403, "EIAM_MAIL_PERMISSION_DENIED");
    app.clock.advance(301);
    app.patch_mail(&token, "c@example.com", &code)
        .await
        .error(403, "REAUTH_REQUIRED");
    app.patch_mail(&token, "not-a-mail", &code)
        .await
        .error(400, "INVALID_MAIL");
}

#[tokio::test]
async fn two_users_binding_one_address_at_once_have_exactly_one_winner() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    app.sign_up("bob", "bob@example.com").await;
    let ann = app.sign_in("ann@example.com", PASSWORD).await;
    let bob = app.sign_in("bob@example.com", PASSWORD).await;
    let code = app.fresh_code("shared@example.com", "bind").await;
    let (a, b) = tokio::join!(
        app.patch_mail(&ann, "shared@example.com", &code),
        app.patch_mail(&bob, "shared@example.com", &code)
    );
    let wins = [a.status.as_u16(), b.status.as_u16()]
        .iter()
        .filter(|s| **s == 200)
        .count();
    assert_eq!(wins, 1, "{} / {}", a.text, b.text);
    let owner = app.owner_of("shared@example.com").await.expect("one owner");
    let loser = if a.status == 200 { &b } else { &a };
    assert!(
        ["MAIL_EXIST", "VERIFYCODE_NOT_FOUND"].contains(&loser.reason().as_str()),
        "{}",
        loser.text
    );
    // The loser still owns its old address.
    let still = if a.status == 200 {
        "bob@example.com"
    } else {
        "ann@example.com"
    };
    assert!(app.owner_of(still).await.is_some_and(|o| o != owner));
}

#[tokio::test]
async fn deactivation_ends_every_session_and_a_later_sign_in_is_a_password_error() {
    let app = TestApp::spawn().await;
    let uid = app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    let other = app.sign_in("ann@example.com", PASSWORD).await;
    app.deactivate(&token, &json!({ "password": "Wr0ng!Passw0rd" }))
        .await
        .error(401, "PASSWORD_ERROR");
    app.deactivate(&token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.get_info(&other)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.login_password("ann@example.com", PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    // The tombstone keeps no personal data.
    let item = app.user_item(&uid).await.expect("tombstone");
    for attr in ["mail", "phone", "company", "pwdHash", "totpSecret"] {
        assert!(!item.attrs.contains_key(attr), "{attr} is gone");
    }
    // The address is free again; the username stays reserved.
    assert_eq!(app.owner_of("ann@example.com").await, None);
    let code = app.fresh_code("ann@example.com", "register").await;
    let r = app
        .post_register(&crate::helpers::registration(
            "ann",
            "ann@example.com",
            &code,
        ))
        .await;
    r.error(409, "USERNAME_EXIST");
    let r = app
        .post_register(&crate::helpers::registration(
            "ann2",
            "ann@example.com",
            &code,
        ))
        .await;
    r.ok(201);
    assert_eq!(
        app.outbox.notices().last().map(|n| n.notice.clone()),
        Some(Notice::Deactivated)
    );
}

#[tokio::test]
async fn deactivation_needs_a_proof_and_is_refused_to_staff() {
    let app = TestApp::spawn().await;
    app.sign_up("ann", "ann@example.com").await;
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    app.clock.advance(301);
    app.deactivate(&token, &json!({}))
        .await
        .error(403, "REAUTH_REQUIRED");
    let staff = ciam_core::user::User {
        id: crate::helpers::new_user_id(),
        user_name: "staffer".into(),
        mail: Some("s@staff.ciam.example".into()),
        eiam_uid: Some("E100".into()),
        pwd_hash: Some(crate::helpers::password_hash(PASSWORD).await),
        ..Default::default()
    };
    app.seed_user(&staff).await;
    let t = app.sign_in("s@staff.ciam.example", PASSWORD).await;
    app.deactivate(&t, &json!({ "password": PASSWORD }))
        .await
        .error(403, "EIAM_DEACTIVATE_ERROR");
    let code = app.fresh_code("n@example.com", "bind").await;
    app.patch_mail(&t, "n@example.com", &code)
        .await
        .error(403, "EIAM_MAIL_PERMISSION_DENIED");
}
