//! What the console's review found (issue 21), each now a test: a one-factor code sign-in is not
//! a second factor; an operator cannot act on a role holder as high as themselves; the registry
//! API's changes are audited; a deactivated role holder leaves
//! the roles list; a password proof keeps the sign-in's second factor.

use crate::helpers::{TestApp, PASSWORD};
use axum::http::Method;
use ciam_core::console::Role;
use serde_json::json;

fn reason() -> serde_json::Value {
    json!({ "reason": "the review" })
}

#[tokio::test]
async fn a_code_sign_in_alone_does_not_open_the_console() {
    let app = TestApp::spawn().await;
    let mail = "coder@example.com";
    app.sign_up("coder", mail).await;
    app.grant_role(mail, Role::Admin).await;
    let code = app.fresh_code(mail, "login").await;
    let token = app.login_code(mail, &code).await.ok(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    app.admin_get("/admin/me", &token)
        .await
        .error(403, "CONSOLE_MFA_REQUIRED");
    app.admin_call(
        Method::PUT,
        "/admin/roles/anyone",
        Some(&token),
        Some(&json!({ "role": "admin" })),
    )
    .await
    .error(403, "CONSOLE_MFA_REQUIRED");
}

#[tokio::test]
async fn an_operator_cannot_act_on_an_admin_or_another_operator_and_an_admin_can() {
    let app = TestApp::spawn().await;
    let (admin_id, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (op_id, op) = app.staffer("agent", Some(Role::Operator)).await;
    let (other_id, _) = app.staffer("peer", Some(Role::Operator)).await;
    let (customer_id, _) = app.staffer("cust", None).await;
    for target in [&admin_id, &other_id, &op_id] {
        for action in ["suspend", "reset-two-factor", "end-sessions", "unlock"] {
            app.admin_call(
                Method::POST,
                &format!("/admin/accounts/{target}/{action}"),
                Some(&op),
                Some(&reason()),
            )
            .await
            .error(403, "PERMISSION_DENIED");
        }
    }
    // Nothing happened to the admin: still signed in.
    app.admin_get("/admin/me", &admin).await.ok(200);
    // A customer, yes; and an admin acts on an operator.
    app.admin_call(
        Method::POST,
        &format!("/admin/accounts/{customer_id}/suspend"),
        Some(&op),
        Some(&reason()),
    )
    .await
    .ok(200);
    app.admin_call(
        Method::POST,
        &format!("/admin/accounts/{other_id}/suspend"),
        Some(&admin),
        Some(&reason()),
    )
    .await
    .ok(200);
    // One admin cannot replace another admin's mail.
    let (second_id, _) = app.staffer("boss2", Some(Role::Admin)).await;
    let body = json!({ "reason": "the review", "mail": "taken-over@example.com" });
    app.admin_call(
        Method::PUT,
        &format!("/admin/accounts/{second_id}/identity"),
        Some(&admin),
        Some(&body),
    )
    .await
    .error(403, "PERMISSION_DENIED");
}

/// The registry API of before issue 30 (`/app`, an admin's password session) is gone: the
/// console's rows are the only door, and a password-only admin opens none of them.
#[tokio::test]
async fn the_registry_has_no_door_for_a_password_only_admin() {
    let app = TestApp::spawn().await;
    let mail = "reg@example.com";
    app.sign_up("reg", mail).await;
    app.make_admin(mail).await;
    let password_only = app.sign_in(mail, PASSWORD).await;
    let body = json!({
        "name": { "zh-CN": "登记", "en-US": "Registry" },
        "serviceUrls": ["https://registry.example.com/cb"],
    });
    app.create_app(&password_only, &body)
        .await
        .error(403, "CONSOLE_MFA_REQUIRED");
    for (method, p) in [
        (Method::GET, "/app"),
        (Method::POST, "/app"),
        (Method::GET, "/app/0123456789abcdef"),
        (Method::PATCH, "/app/0123456789abcdef"),
        (Method::DELETE, "/app/0123456789abcdef"),
        (Method::GET, "/app/0123456789abcdef/webhooks"),
        (Method::POST, "/app/0123456789abcdef/webhooks/ep_0/replay"),
    ] {
        let res = app
            .admin_call(method.clone(), p, Some(&password_only), Some(&body))
            .await;
        assert_eq!(res.status.as_u16(), 404, "{method} {p}: {}", res.text);
    }
    let (_, token) = app.staffer("viewer", Some(Role::Viewer)).await;
    let day = app.today();
    let log = app
        .admin_get(&format!("/admin/audit?from={day}&to={day}"), &token)
        .await
        .ok(200);
    assert_eq!(log["entries"], json!([]));
}

#[tokio::test]
async fn a_deactivated_role_holder_leaves_the_roles_list() {
    let app = TestApp::spawn().await;
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (_, leaver) = app.staffer("leaver", Some(Role::Operator)).await;
    let holders = |v: serde_json::Value| v["holders"].as_array().expect("holders").len();
    assert_eq!(
        holders(app.admin_get("/admin/roles", &admin).await.ok(200)),
        2
    );
    app.deactivate(&leaver, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert_eq!(
        holders(app.admin_get("/admin/roles", &admin).await.ok(200)),
        1
    );
}

#[tokio::test]
async fn a_password_proof_keeps_the_sign_ins_second_factor() {
    let app = TestApp::spawn().await;
    let (_, op) = app.staffer("proof", Some(Role::Operator)).await;
    app.admin_call(
        Method::POST,
        "/auth/totp/verify",
        Some(&op),
        Some(&json!({ "password": PASSWORD })),
    )
    .await
    .ok(200);
    app.admin_get("/admin/me", &op).await.ok(200);
}
