//! Verification codes: resend pacing, the daily cap, the five-try limit, expiry, purposes, and
//! a delivery that fails or that the provider refuses.

use crate::helpers::{registration, wrong_code, TestApp};

#[tokio::test]
async fn a_resend_within_a_minute_is_too_quick_and_a_later_one_replaces_the_code() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let old = app.fresh_code(mail, "register").await;

    app.clock.advance(59);
    app.send_code(mail, "register")
        .await
        .error(429, "VERIFYCODE_SENDING_TOO_QUICKLY");
    assert_eq!(app.outbox.messages().len(), 1);

    app.clock.advance(1);
    let new = app.fresh_code(mail, "register").await;
    assert_eq!(app.outbox.messages().len(), 2);
    if old != new {
        app.post_register(&registration("annlee", mail, &old))
            .await
            .error(400, "CODE_ERROR");
    }
    app.post_register(&registration("annlee", mail, &new))
        .await
        .ok(201);
}

#[tokio::test]
async fn the_eleventh_code_of_a_day_is_refused_until_the_next_day() {
    let app = TestApp::spawn().await;
    let phone = "13800138000";
    for n in 1..=10 {
        let res = app.send_code(phone, "register").await;
        assert_eq!(res.status, 200, "send {n}: {}", res.text);
        app.clock.advance(60);
    }
    app.send_code(phone, "register")
        .await
        .error(429, "VERIFYCODE_SENDING_LIMIT");
    // Another purpose shares the identity's daily cap.
    app.send_code(phone, "login")
        .await
        .error(429, "VERIFYCODE_SENDING_LIMIT");
    assert_eq!(app.outbox.messages().len(), 10);

    app.clock.advance(86_400);
    app.send_code(phone, "register").await.ok(200);
}

#[tokio::test]
async fn five_wrong_codes_hold_every_check_for_five_minutes_until_a_new_code() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let code = app.fresh_code(mail, "register").await;
    let form = |c: &str| registration("annlee", mail, c);
    let wrong = wrong_code(&code);

    for n in 1..=4 {
        let res = app.post_register(&form(&wrong)).await;
        assert_eq!(res.reason(), "CODE_ERROR", "try {n}: {}", res.text);
    }
    app.post_register(&form(&wrong))
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");
    app.post_register(&form(&code))
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");

    app.clock.advance(299);
    app.post_register(&form(&code))
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");
    app.send_code(mail, "register")
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");

    app.clock.advance(1);
    app.post_register(&form(&code))
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
    let fresh = app.fresh_code(mail, "register").await;
    app.post_register(&form(&fresh)).await.ok(201);
}

#[tokio::test]
async fn a_code_expires_after_ten_minutes() {
    let app = TestApp::spawn().await;
    let early = app.fresh_code("ann@example.com", "register").await;
    let late = app.fresh_code("bob@example.com", "register").await;

    app.clock.advance(599);
    app.post_register(&registration("annlee", "ann@example.com", &early))
        .await
        .ok(201);
    app.clock.advance(1);
    app.post_register(&registration("boblee", "bob@example.com", &late))
        .await
        .error(400, "VERIFYCODE_NOT_FOUND");
}

#[tokio::test]
async fn a_code_works_only_for_the_purpose_it_was_sent_for() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let login = app.fresh_code(mail, "login").await;
    // No sign-up code is live, and this is the sign-in code: the wrong kind, not a wrong code.
    app.post_register(&registration("annlee", mail, &login))
        .await
        .error(400, "CODE_KIND_ERROR");

    let register = app.fresh_code(mail, "register").await;
    app.login_code(mail, &register)
        .await
        .error(400, "CODE_ERROR");
    app.post_register(&registration("annlee", mail, &register))
        .await
        .ok(201);
    // The login code, sent before the account existed, is still good for signing in.
    app.login_code(mail, &login).await.ok(200);
}

#[tokio::test]
async fn an_undelivered_code_is_an_internal_error_and_may_be_asked_for_again_at_once() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    app.outbox.fail_deliveries(true);
    let res = app.send_code(mail, "register").await;
    res.error(500, "INTERNAL_SERVER_ERROR");
    assert!(
        !res.text.contains("smtp"),
        "no internal detail: {}",
        res.text
    );

    app.outbox.fail_deliveries(false);
    let code = app.fresh_code(mail, "register").await;
    app.post_register(&registration("annlee", mail, &code))
        .await
        .ok(201);
}

#[tokio::test]
async fn a_providers_refusal_is_answered_as_its_reason_and_withdraws_the_code() {
    let app = TestApp::spawn().await;
    let phone = "13800138000";
    for reason in [
        ciam_core::Reason::VERIFYCODE_SENDING_TOO_QUICKLY,
        ciam_core::Reason::VERIFYCODE_SENDING_LIMIT,
    ] {
        app.outbox.refuse_with(Some(reason));
        app.send_code(phone, "register")
            .await
            .error(429, reason.code());
    }
    app.outbox
        .refuse_with(Some(ciam_core::Reason::INVALID_PHONE));
    app.send_code(phone, "register")
        .await
        .error(400, "INVALID_PHONE");
    // Nothing was delivered, so nothing holds the next send: it goes at once.
    app.outbox.refuse_with(None);
    let code = app.fresh_code(phone, "register").await;
    app.post_register(&registration("annlee", phone, &code))
        .await
        .ok(201);
}

#[tokio::test]
async fn a_code_typed_where_none_of_its_purpose_was_sent_is_the_wrong_kind_and_stays_good() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let register = app.fresh_code(mail, "register").await;
    // Four times: the fifth failed sign-in locks the name, as it locks an account.
    for _ in 0..4 {
        app.login_code(mail, &register)
            .await
            .error(400, "CODE_KIND_ERROR");
    }
    let reset = serde_json::json!({ "account": mail, "code": register, "password": "An0ther#Secret9", "confirmPassword": "An0ther#Secret9" });
    app.patch_pwd(None, &reset)
        .await
        .error(400, "CODE_KIND_ERROR");
    // Told the wrong kind as often as it was asked, the code still signs up.
    app.post_register(&registration("annlee", mail, &register))
        .await
        .ok(201);
}

#[tokio::test]
async fn wrong_guesses_where_no_code_of_the_purpose_was_sent_count_on_the_live_codes() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";
    let register = app.fresh_code(mail, "register").await;
    let wrong = wrong_code(&register);
    for n in 1..=5 {
        let res = app.login_code(mail, &wrong).await;
        // The fifth failed sign-in locks the name, as it locks an account.
        let expected = if n < 5 {
            "VERIFYCODE_NOT_FOUND"
        } else {
            "VERIFICATION_ATTEMPT_CODE_LIMIT"
        };
        assert_eq!(res.reason(), expected, "guess {n}: {}", res.text);
    }
    // Five wrong guesses were compared with the sign-up code: it is burnt, as after five wrong
    // tries at sign-up, so the answer is no oracle for guessing it.
    app.post_register(&registration("annlee", mail, &register))
        .await
        .error(429, "VERIFICATION_CODE_LIMIT");
}
