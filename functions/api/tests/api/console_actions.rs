//! The operator's account actions (docs/console-design.md §5, §8): unlock, end sessions, reset
//! two-factor, send a reset code; each with a reason, audited, in the customer's activity and
//! told to the customer.

use crate::helpers::{TestApp, NEW_PASSWORD, PASSWORD};
use crate::two_factor::enrolled_in;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::notifier::Notice;
use serde_json::{json, Value};

const ACTIONS: [&str; 4] = [
    "unlock",
    "end-sessions",
    "reset-two-factor",
    "send-reset-code",
];

impl TestApp {
    /// `POST /admin/accounts/{userId}/<action>` with `reason`, as the staffer `token`.
    pub(crate) async fn act(
        &self,
        token: &str,
        user_id: &str,
        action: &str,
        reason: &str,
    ) -> crate::helpers::TestResponse {
        let p = format!("/admin/accounts/{user_id}/{action}");
        self.admin_call(
            Method::POST,
            &p,
            Some(token),
            Some(&json!({ "reason": reason })),
        )
        .await
    }

    async fn activity_kinds(&self, token: &str) -> Vec<String> {
        self.get_activity(token).await.ok(200)["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter_map(|e| e["kind"].as_str().map(str::to_owned))
            .collect()
    }

    async fn audit_of(&self, token: &str, action: &str) -> Vec<Value> {
        let day = self.today();
        let p = format!("/admin/audit?from={day}&to={day}&action={action}");
        self.admin_get(&p, token).await.ok(200)["entries"]
            .as_array()
            .cloned()
            .expect("entries")
    }
}

#[tokio::test]
async fn an_operator_unlocks_a_locked_customer_who_then_signs_in() {
    let app = TestApp::spawn().await;
    let (operator_id, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let mail = "ann@example.com";
    let ann = app.sign_up("annlee", mail).await;
    for _ in 1..=4 {
        app.login_password(mail, NEW_PASSWORD)
            .await
            .error(401, "PASSWORD_ERROR");
    }
    app.login_password(mail, NEW_PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");
    app.login_password(mail, PASSWORD)
        .await
        .error(423, "VERIFICATION_ATTEMPT_CODE_LIMIT");

    app.act(
        &operator,
        &ann,
        "unlock",
        "the customer called from her desk phone",
    )
    .await
    .ok(200);
    let token = app.sign_in(mail, PASSWORD).await;
    assert!(app
        .activity_kinds(&token)
        .await
        .contains(&"unlockedBySupport".to_owned()));
    assert_eq!(
        app.outbox.notices().last().map(|n| n.notice.clone()),
        Some(Notice::UnlockedBySupport)
    );
    let entries = app.audit_of(&operator, "account.unlock").await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["actor"], operator_id.as_str());
    assert_eq!(entries[0]["target"], ann.as_str());
    assert_eq!(
        entries[0]["reason"],
        "the customer called from her desk phone"
    );
}

#[tokio::test]
async fn ending_the_sessions_ends_the_customers_token() {
    let app = TestApp::spawn().await;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (ann, ann_token) = app.staffer("ann", None).await;
    app.get_info(&ann_token).await.ok(200);
    app.act(&operator, &ann, "end-sessions", "a stolen laptop")
        .await
        .ok(200);
    app.get_info(&ann_token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let token = app.sign_in("ann@example.com", PASSWORD).await;
    assert!(app
        .activity_kinds(&token)
        .await
        .contains(&"sessionsEndedBySupport".to_owned()));
    assert_eq!(
        app.outbox.notices().last().map(|n| n.notice.clone()),
        Some(Notice::SessionsEndedBySupport)
    );
    assert_eq!(
        app.audit_of(&operator, "account.endSessions").await.len(),
        1
    );
}

#[tokio::test]
async fn resetting_two_factor_lets_the_customer_sign_in_with_the_password_alone() {
    let e = enrolled_in(TestApp::spawn().await).await;
    let app = &e.app;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    e.challenge().await;
    let found = app
        .admin_get("/admin/accounts?mail=tfa@example.com", &operator)
        .await
        .ok(200);
    let id = found["account"]["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    app.act(&operator, &id, "reset-two-factor", "lost the phone")
        .await
        .ok(200);
    let body = app
        .login_password("tfa@example.com", PASSWORD)
        .await
        .ok(200);
    let token = body["token"].as_str().expect("token");
    assert!(app
        .activity_kinds(token)
        .await
        .contains(&"twoFactorResetBySupport".to_owned()));
    assert_eq!(
        app.outbox.notices().last().map(|n| n.notice.clone()),
        Some(Notice::TwoFactorResetBySupport)
    );
    // Once more: nothing to change, still recorded.
    app.act(&operator, &id, "reset-two-factor", "asked twice")
        .await
        .ok(200);
    let entries = app.audit_of(&operator, "account.resetTwoFactor").await;
    assert_eq!(entries.len(), 2, "{entries:?}");
    assert!(
        entries.iter().any(|e| e["detail"] == "nothing to change"),
        "{entries:?}"
    );
}

#[tokio::test]
async fn a_reset_code_sent_by_an_operator_resets_the_password() {
    let app = TestApp::spawn().await;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let mail = "ann@example.com";
    let (ann, _) = app.staffer("ann", None).await;
    let res = app
        .act(&operator, &ann, "send-reset-code", "forgot it")
        .await;
    let code = app.outbox.last_code(mail, "resetPassword").expect("a code");
    assert!(!res.text.contains(&code), "{}", res.text);
    res.ok(200);
    let reset = json!({ "account": mail, "code": code, "password": NEW_PASSWORD, "confirmPassword": NEW_PASSWORD });
    app.patch_pwd(None, &reset).await.ok(200);
    let token = app.sign_in(mail, NEW_PASSWORD).await;
    assert!(app
        .activity_kinds(&token)
        .await
        .contains(&"resetCodeSentBySupport".to_owned()));
    assert_eq!(
        app.audit_of(&operator, "account.sendResetCode").await.len(),
        1
    );
}

#[tokio::test]
async fn the_actions_need_an_operator_a_reason_a_fresh_proof_and_a_live_account() {
    let app = TestApp::spawn().await;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    let (ann, _) = app.staffer("ann", None).await;
    for action in ACTIONS {
        app.act(&viewer, &ann, action, "asked")
            .await
            .error(403, "PERMISSION_DENIED");
        for bad in ["", "   ", &"x".repeat(501)] {
            let res = app.act(&operator, &ann, action, bad).await;
            assert_eq!(
                res.error(400, "INVALID_PARAMETER")["field"],
                "reason",
                "{action}"
            );
        }
        let p = format!("/admin/accounts/{ann}/{action}");
        app.admin_call(Method::POST, &p, Some(&operator), Some(&json!({})))
            .await
            .error(400, "INVALID_PARAMETER");
        app.act(
            &operator,
            "0123456789abcdef0123456789abcdef",
            action,
            "asked",
        )
        .await
        .error(404, "ACCOUNT_NOT_FOUND");
    }
    // A deactivated account is not found.
    let (bob, bob_token) = app.staffer("bob", None).await;
    app.deactivate(&bob_token, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    for action in ACTIONS {
        app.act(&operator, &bob, action, "asked")
            .await
            .error(404, "ACCOUNT_NOT_FOUND");
    }
    // Six minutes on, the sign-in's proof is stale.
    app.clock.advance(6 * 60);
    for action in ACTIONS {
        app.act(&operator, &ann, action, "asked")
            .await
            .error(403, "REAUTH_REQUIRED");
    }
    assert!(app.audit_of(&operator, "account.unlock").await.is_empty());
}
