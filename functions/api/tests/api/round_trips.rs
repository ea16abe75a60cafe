//! The store round trips the handlers of `functions/api/src/routes/auth.rs` state in their doc
//! comments, counted on the store spy (DESIGN.md §3: the number is part of the route's
//! contract). Calls made side by side (`tokio::join!`) are one round trip but two calls here, so
//! each case lists the calls themselves. A sign-in, a registration and a deactivation then
//! write the console's numbers (`ciam_core::numbers`, after the answer is decided, best
//! effort): those calls are listed after the handler's own.

use crate::helpers::{registration, TestApp, NEW_PASSWORD, PASSWORD};
use serde_json::json;

/// The operations the store saw since the last look, in order.
fn calls(app: &TestApp) -> Vec<&'static str> {
    app.store
        .take_calls()
        .into_iter()
        .map(|(op, _)| op)
        .collect()
}

#[tokio::test]
async fn each_auth_handler_makes_the_round_trips_its_doc_comment_states() {
    let app = TestApp::spawn().await;
    let mail = "ann@example.com";

    app.get_location(&[]).await.ok(200);
    app.get_captcha().await.ok(200);
    assert_eq!(calls(&app), Vec::<&str>::new(), "location, captcha: 0");

    let captcha = app.solved_captcha().await;
    calls(&app);
    app.post_identity(&json!({ "account": mail, "purpose": "register", "captcha": captcha }))
        .await
        .ok(200);
    assert_eq!(
        calls(&app),
        ["get", "transact", "update"],
        "identity: a sign-up code to a mail: its domain's owner item (does it require its \
         company's sign-in?), then 1 transaction, then the code marked delivered"
    );

    let code = app.code_for(mail, "register");
    app.post_register(&registration("annlee", mail, &code))
        .await
        .ok(201);
    assert_eq!(
        calls(&app),
        ["get", "get", "transact", "get", "update", "update", "update"],
        "register: 2 (the code beside the mail's domain, the transaction), then the proven mail's domain (one GetItem of DOMAIN#example.com, \
         docs/organizations-domains.md §4), then the numbers' new account (the total, the week, \
         the month side by side)"
    );

    let body = app.login_password(mail, PASSWORD).await.ok(200);
    let token = body["token"].as_str().unwrap().to_owned();
    assert_eq!(
        calls(&app),
        [
            "update_once",
            "get",
            "update",
            "put",
            "get",
            "update_or_current",
            "update",
            "update"
        ],
        "password sign-in: 2 (the attempt beside the mail's domain; the reset and the session \
         side by side), then the numbers of the account's first sign-in of the month: its \
         activity (the user item read, then its conditional update), the week's and the \
         month's counters side by side"
    );

    let code = app.fresh_code(mail, "login").await;
    calls(&app);
    app.login_code(mail, &code).await.ok(200);
    let mut seen = calls(&app);
    let numbers = seen.split_off(seen.len() - 2);
    assert_eq!(
        numbers,
        ["get", "update"],
        "then the numbers: the activity, already counted today (a read), the week's counters"
    );
    let mut last = seen.split_off(seen.len() - 1);
    seen.sort_unstable();
    last.sort_unstable();
    assert_eq!(
        (seen, last),
        (vec!["get", "get", "update_once"], vec!["transact"]),
        "code sign-in: 2 (the attempt, the code and the mail's domain side by side, then the transaction; \
         the enrolment uses the domain read with the attempt: DOMAIN#example.com is read once)"
    );

    app.patch_pwd(
        Some(&token),
        &json!({ "oldPassword": PASSWORD, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD }),
    )
    .await
    .ok(200);
    assert_eq!(
        calls(&app),
        ["get_many", "transact"],
        "password change: 2 (authentication, one transaction)"
    );

    let code = app.fresh_code(mail, "resetPassword").await;
    calls(&app);
    app.patch_pwd(
        None,
        &json!({ "account": mail, "code": code, "password": PASSWORD, "confirmPassword": PASSWORD }),
    )
    .await
    .ok(200);
    assert_eq!(
        calls(&app),
        ["get", "get", "get", "transact"],
        "password reset: 4 (the owner, the user, the code, one transaction)"
    );

    let token = app.sign_in(mail, PASSWORD).await;
    calls(&app);
    app.logout(&token).await.ok(200);
    assert_eq!(
        calls(&app),
        ["get_many", "update"],
        "logout: 2 (authentication, the end of the session)"
    );
}
