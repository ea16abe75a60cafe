//! Suspension, reactivation, the passkey reset and the identity replacement of the console
//! (docs/console-design.md §4, §5): a suspended account signs in by no method (a right secret
//! is told ACCOUNT_SUSPENDED, a wrong one answered as for anyone), its sessions, access tokens and tickets are refused; each action is
//! audited, in the customer's activity and told to the customer. On SQLite and DynamoDB Local.

use crate::helpers::{wrong_code, TestApp, TestResponse, NEW_PASSWORD, PASSWORD};
use crate::passkeys::{add, assertion, soft};
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::notifier::Notice;
use ciam_core::validate::Identity;
use ciam_core::Config;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::sqlite::SqliteStore;
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;

const MAIL: &str = "ann@example.com";
const PHONE: &str = "13800000000";

fn config() -> Config {
    // The passkeys' relying party (the soft authenticator's origin).
    Config {
        public_url: "http://localhost:8080".to_owned(),
        ..Config::default()
    }
}

async fn sqlite_app() -> TestApp {
    TestApp::spawn_with(
        |clock| {
            Box::pin(async move {
                let store: Arc<dyn Store> =
                    Arc::new(SqliteStore::in_memory(Arc::new(clock)).expect("in-memory store"));
                store
            })
        },
        config(),
    )
    .await
}

async fn dynamo_app(local: &Arc<DynamoLocal>, table: &str) -> TestApp {
    TestApp::on_dynamo_with(local, table, config()).await
}

impl TestApp {
    /// `POST /admin/accounts/{user_id}/{action}` with `reason`.
    async fn support(
        &self,
        token: &str,
        user_id: &str,
        action: &str,
        reason: &str,
    ) -> TestResponse {
        let p = format!("/admin/accounts/{user_id}/{action}");
        self.admin_call(
            Method::POST,
            &p,
            Some(token),
            Some(&json!({ "reason": reason })),
        )
        .await
    }

    /// `PUT /admin/accounts/{user_id}/identity` with `body`.
    async fn replace_identity(&self, token: &str, user_id: &str, body: &Value) -> TestResponse {
        let p = format!("/admin/accounts/{user_id}/identity");
        self.admin_call(Method::PUT, &p, Some(token), Some(body))
            .await
    }

    async fn kinds_seen_by(&self, token: &str) -> Vec<String> {
        self.get_activity(token).await.ok(200)["events"]
            .as_array()
            .expect("events")
            .iter()
            .filter_map(|e| e["kind"].as_str().map(str::to_owned))
            .collect()
    }

    async fn audit_entries(&self, token: &str, action: &str) -> Vec<Value> {
        let day = self.today();
        let p = format!("/admin/audit?from={day}&to={day}&action={action}");
        self.admin_get(&p, token).await.ok(200)["entries"]
            .as_array()
            .cloned()
            .expect("entries")
    }

    fn notices_of(&self, kind: &str) -> Vec<ciam_core::notifier::NoticeMessage> {
        self.outbox
            .notices()
            .into_iter()
            .filter(|n| n.notice.kind() == kind)
            .collect()
    }
}

/// The same status and body (the form tells a stranger nothing).
#[track_caller]
fn alike(got: &TestResponse, want: &TestResponse, what: &str) {
    assert_eq!(
        got.status, want.status,
        "{what}: {} vs {}",
        got.text, want.text
    );
    assert_eq!(got.text, want.text, "{what}");
}

/// The whole suspension on the engine of `app`: every sign-in method refused (the owner told
/// why), the session ended, the page says so; reactivation lets the password and the passkey
/// in again; the audit log, the activity and the notices.
async fn suspension(app: TestApp) {
    let (operator_id, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let ann = app.sign_up("annlee", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    let bind = app.fresh_code(PHONE, "bind").await;
    app.patch_phone(&token, PHONE, &bind).await.ok(200);
    let mut auth = soft(7);
    add(&app, &token, &mut auth).await.ok(200);
    app.sign_up("bobby", "bob@example.com").await;

    app.support(&operator, &ann, "suspend", "a fraud report")
        .await
        .ok(200);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");

    // Password, by mail, phone and user name: a wrong one gets what any wrong password gets,
    // the right one the truth (suspended_truth.rs has the byte-for-byte comparisons).
    let wrong = app.login_password("bob@example.com", NEW_PASSWORD).await;
    wrong.error(401, "PASSWORD_ERROR");
    for account in [MAIL, PHONE] {
        let res = app.login_password(account, NEW_PASSWORD).await;
        alike(&res, &wrong, account);
        app.login_password(account, PASSWORD)
            .await
            .error(403, "ACCOUNT_SUSPENDED");
    }
    // A user name is no sign-in identifier: it proves nothing, whatever the password.
    let res = app.login_password("annlee", PASSWORD).await;
    alike(&res, &wrong, "a user name");
    let unknown = app.login_password("nobody@example.com", NEW_PASSWORD).await;
    alike(&unknown, &wrong, "an unknown name");

    // Code sign-in: a wrong code answers as for anyone, a right one tells the truth.
    let bob_code = app.fresh_code("bob@example.com", "login").await;
    let wrong_code_res = app
        .login_code("bob@example.com", &wrong_code(&bob_code))
        .await;
    wrong_code_res.error(400, "CODE_ERROR");
    let code = app.fresh_code(MAIL, "login").await;
    alike(
        &app.login_code(MAIL, &wrong_code(&code)).await,
        &wrong_code_res,
        "a wrong code",
    );
    app.login_code(MAIL, &code)
        .await
        .error(403, "ACCOUNT_SUSPENDED");

    // Passkey: the owner's passkey is told the truth; a stranger's what an unknown one gets.
    let body = assertion(&app, &mut auth, &ann).await;
    app.passkey_login(&body)
        .await
        .error(403, "ACCOUNT_SUSPENDED");
    let mut stranger = soft(8);
    app.passkey_login(&assertion(&app, &mut stranger, &ann).await)
        .await
        .error(404, "PASSKEY_NOT_FOUND");

    // The console's page says so.
    let page = app
        .admin_get(&format!("/admin/accounts/{ann}"), &operator)
        .await
        .ok(200);
    assert_eq!(page["status"], "suspended", "{page}");
    assert!(page["suspendedAt"].as_i64().is_some(), "{page}");
    // Suspending again changes nothing but is recorded.
    app.support(&operator, &ann, "suspend", "asked twice")
        .await
        .ok(200);

    app.support(&operator, &ann, "reactivate", "cleared up")
        .await
        .ok(200);
    let page = app
        .admin_get(&format!("/admin/accounts/{ann}"), &operator)
        .await
        .ok(200);
    assert_eq!(page["status"], "active", "{page}");
    assert_eq!(page["suspendedAt"], Value::Null);
    let again = app.sign_in(MAIL, PASSWORD).await;
    app.sign_in(PHONE, PASSWORD).await;
    let body = assertion(&app, &mut auth, &ann).await;
    app.passkey_login(&body).await.ok(200);
    let kinds = app.kinds_seen_by(&again).await;
    for kind in ["suspendedBySupport", "reactivatedBySupport"] {
        assert!(kinds.contains(&kind.to_owned()), "{kind}: {kinds:?}");
    }
    assert_eq!(app.notices_of("suspendedBySupport").len(), 1);
    assert_eq!(app.notices_of("reactivatedBySupport").len(), 1);
    assert_eq!(
        app.notices_of("suspendedBySupport")[0].notice,
        Notice::SuspendedBySupport
    );
    let suspends = app.audit_entries(&operator, "account.suspend").await;
    assert_eq!(suspends.len(), 2, "{suspends:?}");
    assert!(suspends
        .iter()
        .all(|e| e["actor"] == operator_id.as_str() && e["target"] == ann.as_str()));
    assert!(
        suspends.iter().any(|e| e["detail"] == "nothing to change"),
        "{suspends:?}"
    );
    let reactivations = app.audit_entries(&operator, "account.reactivate").await;
    assert_eq!(reactivations.len(), 1, "{reactivations:?}");
    assert_eq!(reactivations[0]["reason"], "cleared up");
}

#[tokio::test]
async fn a_suspended_account_signs_in_by_no_method_until_reactivated() {
    suspension(sqlite_app().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_suspended_account_signs_in_by_no_method_until_reactivated() {
    let local = Arc::new(DynamoLocal::start().await);
    suspension(dynamo_app(&local, "suspend").await).await;
}

/// OpenID Connect: the access token of a code redeemed before, and a code not yet redeemed.
async fn tokens_refused(app: TestApp) {
    let w = crate::oidc::world_on(app).await;
    let (_, operator) = w.app.staffer("helper", Some(Role::Operator)).await;
    let code = w.code().await;
    let tokens = w
        .redeem(&code, crate::oidc::VERIFIER, crate::oidc::CB)
        .await
        .ok(200);
    let access = tokens["access_token"].as_str().expect("access_token");
    crate::oidc::userinfo(&w.app, access).await.ok(200);
    let unused_code = w.code().await;
    w.app
        .support(&operator, &w.user_id, "suspend", "a fraud report")
        .await
        .ok(200);
    let res = crate::oidc::userinfo(&w.app, access).await;
    crate::oidc::oauth_error(&res, 401, "invalid_token");
    let res = w
        .redeem(&unused_code, crate::oidc::VERIFIER, crate::oidc::CB)
        .await;
    assert_eq!(res.status, 400, "{}", res.text);
    assert_eq!(res.json()["error"], "invalid_grant");
}

/// A ticket issued before: refused at verification, as a used one.
async fn tickets_refused(app: TestApp) {
    let w = crate::apps::world_on(app).await;
    let (_, operator) = w.app.staffer("helper", Some(Role::Operator)).await;
    let ticket = crate::apps::ticket(&w, crate::apps::SERVICE).await;
    let used = crate::apps::ticket(&w, crate::apps::SERVICE).await;
    w.app
        .verify_ticket(&w.app_id, &w.secret, &used, crate::apps::SERVICE)
        .await
        .ok(200);
    let used_again = w
        .app
        .verify_ticket(&w.app_id, &w.secret, &used, crate::apps::SERVICE)
        .await;
    w.app
        .support(&operator, &w.user_id, "suspend", "a fraud report")
        .await
        .ok(200);
    let refused = w
        .app
        .verify_ticket(&w.app_id, &w.secret, &ticket, crate::apps::SERVICE)
        .await;
    refused.error(404, "TICKET_NOT_FOUND");
    alike(&refused, &used_again, "ticket verification");
}

#[tokio::test]
async fn a_suspended_accounts_access_tokens_and_tickets_are_refused() {
    tokens_refused(TestApp::spawn().await).await;
    tickets_refused(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_suspended_accounts_access_tokens_and_tickets_are_refused() {
    let local = Arc::new(DynamoLocal::start().await);
    tokens_refused(dynamo_app(&local, "suspend_tokens").await).await;
    tickets_refused(dynamo_app(&local, "suspend_tickets").await).await;
}

#[tokio::test]
async fn a_suspended_staff_account_is_refused_at_the_staff_sign_in() {
    staff_refused(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_suspended_staff_account_is_refused_at_the_staff_sign_in() {
    let local = Arc::new(DynamoLocal::start().await);
    staff_refused(dynamo_app(&local, "suspend_staff").await).await;
}

async fn staff_refused(app: TestApp) {
    use crate::staff::{staff, staff_code, Staff, STAFF_MAIL};
    let s = Staff::spawn_with(app).await;
    let (_, operator) = s.app.staffer("helper", Some(Role::Operator)).await;
    let to = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    let signed_in = s.redeem(&staff_code(&to)).await.ok(200);
    let user_id = signed_in["userId"].as_str().expect("userId").to_owned();
    // A login code from before the suspension, and what a spent code answers.
    let pending = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    let spent = s.redeem(&staff_code(&to)).await;
    spent.error(401, "AUTHORIZATION_FAILED");

    s.app
        .support(&operator, &user_id, "suspend", "left the company")
        .await
        .ok(200);
    alike(
        &s.redeem(&staff_code(&pending)).await,
        &spent,
        "a pending login code",
    );
    let back = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    assert_eq!(
        back, "/en-US/passport/signin?staffError=AUTHORIZATION_FAILED",
        "as a refused id_token"
    );
    s.app
        .support(&operator, &user_id, "reactivate", "came back")
        .await
        .ok(200);
    let back = s.sign_in_at_idp(staff("E-1", STAFF_MAIL)).await;
    s.redeem(&staff_code(&back)).await.ok(200);
}

#[tokio::test]
async fn resetting_the_passkeys_removes_them_and_ends_the_sessions() {
    passkey_reset(sqlite_app().await).await;
}

#[tokio::test]
async fn on_dynamodb_resetting_the_passkeys_removes_them_and_ends_the_sessions() {
    let local = Arc::new(DynamoLocal::start().await);
    passkey_reset(dynamo_app(&local, "reset_passkeys").await).await;
}

async fn passkey_reset(app: TestApp) {
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let ann = app.sign_up("annlee", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    let mut auth = soft(3);
    add(&app, &token, &mut auth).await.ok(200);
    add(&app, &token, &mut soft(4)).await.ok(200);

    app.support(&operator, &ann, "reset-passkeys", "a lost phone")
        .await
        .ok(200);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    let body = assertion(&app, &mut auth, &ann).await;
    app.passkey_login(&body)
        .await
        .error(404, "PASSKEY_NOT_FOUND");
    let fresh = app.sign_in(MAIL, PASSWORD).await;
    assert_eq!(
        app.list_passkeys(&fresh).await.ok(200)["passkeys"],
        json!([])
    );
    let page = app
        .admin_get(&format!("/admin/accounts/{ann}"), &operator)
        .await
        .ok(200);
    assert_eq!(page["passkeys"], 0);
    // The count is right again: the passkey registers anew.
    add(&app, &fresh, &mut auth).await.ok(200);
    assert!(app
        .kinds_seen_by(&fresh)
        .await
        .contains(&"passkeysResetBySupport".to_owned()));
    assert_eq!(app.notices_of("passkeysResetBySupport").len(), 1);
    assert_eq!(
        app.audit_entries(&operator, "account.resetPasskeys")
            .await
            .len(),
        1
    );
    // Needs an operator.
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    app.support(&viewer, &ann, "reset-passkeys", "asked")
        .await
        .error(403, "PERMISSION_DENIED");
}

/// The identity replacement on the engine of `app`.
async fn replacement(app: TestApp) {
    let (admin_id, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let ann = app.sign_up("annlee", MAIL).await;
    let token = app.sign_in(MAIL, PASSWORD).await;
    app.sign_up("bobby", "bob@example.com").await;
    let to_new = json!({ "reason": "lost the mailbox", "mail": "ann.new@example.com" });

    app.replace_identity(&operator, &ann, &to_new)
        .await
        .error(403, "PERMISSION_DENIED");
    app.replace_identity(
        &admin,
        &ann,
        &json!({ "reason": "x", "mail": "bob@example.com" }),
    )
    .await
    .error(409, "MAIL_EXIST");
    app.replace_identity(&admin, &ann, &json!({ "reason": "x", "mail": MAIL }))
        .await
        .error(400, "INVALID_PARAMETER");
    app.replace_identity(
        &admin,
        &ann,
        &json!({ "reason": "x", "phone": "13800000009", "country": "US" }),
    )
    .await
    .error(400, "INVALID_PARAMETER");
    app.replace_identity(&admin, &ann, &json!({ "mail": "ann.new@example.com" }))
        .await
        .error(400, "INVALID_PARAMETER");

    app.replace_identity(&admin, &ann, &to_new).await.ok(200);
    app.get_info(&token)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    app.login_password(MAIL, PASSWORD)
        .await
        .error(401, "PASSWORD_ERROR");
    let fresh = app.sign_in("ann.new@example.com", PASSWORD).await;
    assert!(app
        .kinds_seen_by(&fresh)
        .await
        .contains(&"identityReplacedBySupport".to_owned()));
    let told = app.notices_of("identityReplacedBySupport");
    assert_eq!(told.len(), 1);
    assert_eq!(told[0].to, Identity::parse(MAIL).expect("mail"));
    assert_eq!(
        told[0].notice,
        Notice::IdentityReplacedBySupport {
            mail: true,
            new: "an***@example.com".to_owned()
        }
    );
    let entries = app.audit_entries(&admin, "account.replaceIdentity").await;
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["actor"], admin_id.as_str());
    assert_eq!(entries[0]["reason"], "lost the mailbox");
    let detail = entries[0]["detail"].as_str().expect("detail");
    assert!(
        detail.starts_with("mail: ") && !detail.contains("ann.new@"),
        "{detail}"
    );
    // The old mail is free again.
    assert_eq!(app.owner_of(MAIL).await, None);

    // A phone, where there was none: nobody to tell.
    app.replace_identity(
        &admin,
        &ann,
        &json!({ "reason": "a new number", "phone": PHONE, "country": "CN" }),
    )
    .await
    .ok(200);
    app.sign_in(PHONE, PASSWORD).await;
    app.sign_in("ann.new@example.com", PASSWORD).await;
    assert_eq!(app.notices_of("identityReplacedBySupport").len(), 1);
}

#[tokio::test]
async fn an_admin_replaces_a_customers_mail_or_phone() {
    replacement(sqlite_app().await).await;
}

#[tokio::test]
async fn on_dynamodb_an_admin_replaces_a_customers_mail_or_phone() {
    let local = Arc::new(DynamoLocal::start().await);
    replacement(dynamo_app(&local, "replace").await).await;
}
