//! The whole journey of a customer, by mail and by phone.

use crate::helpers::{captcha_payload, registration, solve, TestApp, PASSWORD};
use serde_json::json;

#[tokio::test]
async fn a_customer_signs_up_by_mail_signs_in_completes_the_profile_and_signs_out() {
    let app = TestApp::spawn().await;
    let mail = "Ann.Lee@Example.com";

    let ch = app.get_captcha().await.ok(200);
    assert_eq!(ch["algorithm"], "SHA-256");
    assert_eq!(ch["maxnumber"], 1000);
    let captcha = captcha_payload(&ch, solve(&ch), ch["signature"].as_str().unwrap());
    let sent = app
        .post_identity(&json!({ "account": mail, "purpose": "register", "captcha": captcha }))
        .await
        .ok(200);
    assert_eq!(sent["sent"], true);
    let code = app.code_for(mail, "register");

    let created = app
        .post_register(&registration("annlee", mail, &code))
        .await
        .ok(201);
    let user_id = created["userId"].as_str().unwrap().to_owned();
    assert_eq!(user_id.len(), 32, "a simple uuid: {user_id}");

    let signed_in = app
        .login_password("ann.lee@example.com", PASSWORD)
        .await
        .ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    assert_eq!(signed_in["expiresAt"], app.now() + 1800, "30 minutes idle");
    let token = signed_in["token"].as_str().unwrap().to_owned();

    let res = app.get_info(&token).await;
    let info = res.ok(200);
    assert_eq!(info["userId"], user_id.as_str());
    assert_eq!(info["userName"], "annlee");
    assert_eq!(info["mail"], "an***@example.com", "the mail is masked");
    assert_eq!(info["phone"], json!(null));
    assert_eq!(info["company"], "Acme Robotics");
    assert_eq!(info["country"], "CN");
    assert_eq!(info["isComplete"], false);
    assert_eq!(info["isSubscribe"], false);
    assert_eq!(info["isEiamUser"], false);
    assert_eq!(info["enableTotp"], false);
    for secret in ["pwdHash", "$argon2", PASSWORD] {
        assert!(!res.text.contains(secret), "{secret} leaked: {}", res.text);
    }
    // The owner's own mail, whole, in `fullMail` only (the owner's account centre shows it).
    assert_eq!(info["fullMail"], "ann.lee@example.com");
    assert_eq!(
        res.text.matches("ann.lee@example.com").count(),
        1,
        "{}",
        res.text
    );

    let patched = app
        .patch_info(
            &token,
            &json!({ "company": "Acme Ltd", "duty": "Engineer", "address": "1 Harbour Road" }),
        )
        .await
        .ok(200);
    assert_eq!(patched["isComplete"], true);
    let info = app.get_info(&token).await.ok(200);
    assert_eq!(
        (
            &info["company"],
            &info["duty"],
            &info["address"],
            &info["isComplete"]
        ),
        (
            &json!("Acme Ltd"),
            &json!("Engineer"),
            &json!("1 Harbour Road"),
            &json!(true)
        )
    );

    assert_eq!(app.logout(&token).await.ok(200), json!({ "ok": true }));
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.patch_info(&token, &json!({ "duty": "CEO" }))
        .await
        .error(401, "AUTHORIZATION_FAILED");
}

#[tokio::test]
async fn a_customer_signs_up_by_phone_and_signs_in_with_a_code() {
    let app = TestApp::spawn().await;
    let phone = "+86 138-0013-8000";

    let user_id = app.sign_up("wangfang", phone).await;
    let code = app.fresh_code("13800138000", "login").await;
    let signed_in = app.login_code(phone, &code).await.ok(200);
    assert_eq!(signed_in["userId"], user_id.as_str());
    let token = signed_in["token"].as_str().unwrap().to_owned();

    let res = app.get_info(&token).await;
    let info = res.ok(200);
    assert_eq!(
        info["phone"], "138****8000",
        "the phone is masked for display"
    );
    assert_eq!(info["mail"], json!(null));
    // The owner's own number, whole, in `fullPhone` only (the owner's account centre shows it).
    assert_eq!(info["fullPhone"], "13800138000");
    assert_eq!(info["fullMail"], json!(null));
    assert_eq!(res.text.matches("13800138000").count(), 1, "{}", res.text);

    app.login_code(phone, &code)
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    app.logout(&token).await.ok(200);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.logout(&token).await.error(401, "AUTHORIZATION_FAILED");
}
