//! One gate for every operator act (issue 30 item 1, docs/console-design.md §2): every console
//! row's role comes from the row (no handler names one), every change on apps, webhooks and
//! replay needs a second factor, a fresh proof and a reason, through every row that reaches it;
//! a passkey-only admin's password session opens nothing; a refused caller learns nothing of the
//! body (the gate runs before it is read, and so does the session check of every guarded row);
//! a change whose audit entry cannot be written leaves nothing. On SQLite and DynamoDB Local.

use crate::helpers::{TestApp, TestResponse, PASSWORD};
use crate::passkeys;
use axum::body::Body;
use axum::http::Method;
use ciam_api::{all_routes, Auth, RouteDef};
use ciam_core::console::Role;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, Item, Key, Query, Store, StoreError, TxOp, Update};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

fn console_rows() -> Vec<(&'static RouteDef, Role)> {
    all_routes()
        .filter_map(|r| match r.auth {
            Auth::Console(role) => Some((r, role)),
            _ => None,
        })
        .collect()
}

/// What a row's request needs: an account, an app and its endpoint to act on.
struct Targets {
    user: String,
    app: String,
    endpoint: String,
    day: String,
}

/// A valid request of `r` (path, query, body with a reason) for `t`.
fn valid(r: &RouteDef, t: &Targets) -> (Method, String, Option<Value>) {
    let mut p = r
        .path
        .replace("{userId}", &t.user)
        .replace("{appId}", &t.app)
        .replace("{endpointId}", &t.endpoint)
        .replace("{orgId}", "org_0123456789abcdef")
        .replace("{invId}", "inv_0123456789abcdef")
        .replace("{domain}", "walk.example.com")
        .replace("{connId}", "conn_0123456789abcdef");
    match r.path {
        "/admin/accounts" => p.push_str(&format!("?userId={}", t.user)),
        "/admin/audit" | "/admin/directory" => {
            p.push_str(&format!("?from={0}&to={0}&day={0}", t.day))
        }
        _ => {}
    }
    let reason = "the gate walk";
    let body = match (r.method, r.path) {
        ("PUT", "/admin/roles/{userId}") => Some(json!({ "role": "viewer" })),
        ("PUT", "/admin/accounts/{userId}/notes") => Some(json!({ "notes": reason })),
        ("PUT", "/admin/accounts/{userId}/identity") => {
            Some(json!({ "reason": reason, "mail": "walked@example.com" }))
        }
        ("POST", "/admin/accounts/{userId}/unlink-identity") => {
            Some(json!({ "reason": reason, "provider": "mock" }))
        }
        ("POST", "/admin/apps") => Some(json!({
            "name": { "zh-CN": "漫步", "en-US": "Walk" },
            "serviceUrls": ["https://walk.example.com/cb"],
            "reason": reason,
        })),
        ("POST", "/admin/apps/{appId}/webhooks") => Some(json!({
            "url": "https://hooks.example.com/in",
            "events": ["user.updated"],
            "reason": reason,
        })),
        ("POST", "/admin/apps/{appId}/webhooks/{endpointId}/replay") => {
            Some(json!({ "from": 0, "to": 1, "reason": reason }))
        }
        ("PATCH", "/admin/apps/{appId}/webhooks/{endpointId}") => {
            Some(json!({ "description": "walked", "reason": reason }))
        }
        ("PATCH", "/admin/apps/{appId}") => {
            Some(json!({ "description": "walked", "reason": reason }))
        }
        ("POST", "/admin/organizations/{orgId}/invitations") => {
            Some(json!({ "reason": reason, "to": "invited@example.com" }))
        }
        ("POST", "/admin/organizations/{orgId}/domains") => Some(json!({
            "reason": reason, "domain": "walk.example.com", "method": "dns",
        })),
        ("PATCH", "/admin/organizations/{orgId}/domains/{domain}") => {
            Some(json!({ "reason": reason, "enrolment": "off" }))
        }
        ("POST", "/admin/organizations/{orgId}/domains/{domain}/code") => {
            Some(json!({ "reason": reason, "mail": "admin@walk.example.com" }))
        }
        ("PUT", "/admin/organizations/{orgId}/domains/{domain}/sign-in") => {
            Some(json!({ "reason": reason, "connId": null }))
        }
        ("POST", "/admin/organizations/{orgId}/connections") => Some(json!({
            "reason": reason, "protocol": "oidc", "nameEn": "Walk",
            "settings": { "issuer": "https://idp.walk.example", "clientId": "walk" },
            "secret": "walk-secret",
        })),
        ("PATCH", "/admin/organizations/{orgId}/connections/{connId}") => {
            Some(json!({ "reason": reason, "jit": "off" }))
        }
        ("DELETE", "/admin/roles/{userId}") | ("GET", _) => None,
        _ => Some(json!({ "reason": reason })),
    };
    (r.method.parse().expect("method"), p, body)
}

/// Whether the row changes something (a fresh proof, and a reason but for the role rows, whose
/// grant and revocation are their own audit entries).
fn changes(r: &RouteDef) -> bool {
    r.method != "GET"
}

/// Every change but a role's and the desk's notes (their text is its own reason).
fn takes_reason(r: &RouteDef) -> bool {
    changes(r) && !r.path.starts_with("/admin/roles") && !r.path.ends_with("/notes")
}

async fn send(
    app: &TestApp,
    m: Method,
    p: &str,
    token: Option<&str>,
    b: Option<&Value>,
) -> TestResponse {
    app.admin_call(m, p, token, b).await
}

/// A raw body (`None`: no body, no content type).
async fn send_raw(
    app: &TestApp,
    r: &RouteDef,
    p: &str,
    token: Option<&str>,
    body: Option<&str>,
) -> TestResponse {
    let mut req = crate::helpers::request_as(r.method.parse().expect("method"), p, token);
    if body.is_some() {
        req = req.header("content-type", "application/json");
    }
    let req = req
        .body(body.map_or(Body::empty(), |b| Body::from(b.to_owned())))
        .expect("request");
    app.call(req).await
}

async fn dynamo(table: &str) -> (Arc<DynamoLocal>, TestApp) {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, table).await;
    (local, app)
}

/// An app and one of its endpoints, made by `admin` (an admin's second-factor session).
async fn app_and_endpoint(app: &TestApp, admin: &str) -> (String, String) {
    let created = app
        .create_app(
            admin,
            &json!({
                "name": { "zh-CN": "门", "en-US": "Door" },
                "serviceUrls": ["https://door.example.com/cb"],
            }),
        )
        .await
        .ok(201);
    let app_id = created["app"]["appId"].as_str().expect("appId").to_owned();
    let p = format!("/admin/apps/{app_id}/webhooks");
    let body = json!({ "url": "https://hooks.example.com/a", "events": ["user.updated"], "reason": "setup" });
    let ep = send(app, Method::POST, &p, Some(admin), Some(&body))
        .await
        .ok(201);
    let endpoint = ep["endpoint"]["endpointId"]
        .as_str()
        .expect("endpointId")
        .to_owned();
    (app_id, endpoint)
}

/// The audit entries of today, straight from the store.
async fn audit_count(app: &TestApp) -> usize {
    let day = app.today();
    app.store
        .query(Query::partition(format!("AUDIT#{day}")))
        .await
        .expect("audit")
        .len()
}

// ---- the order: who, before what ----

async fn refused_before_the_body(app: &TestApp) {
    let (target, customer) = app.staffer("customer", None).await;
    let t = Targets {
        user: target,
        app: "0123456789abcdef".into(),
        endpoint: "ep_0123456789abcdef".into(),
        day: app.today(),
    };
    let bodies: [Option<&str>; 6] = [
        None,
        Some(""),
        Some("{}"),
        Some("garbage{"),
        Some("[1,2]"),
        Some(r#"{"unknown":1,"reason":5}"#),
    ];
    // Every guarded row: no session, 401 whatever the body.
    let guarded: Vec<_> = all_routes().filter(|r| r.auth.needs_session()).collect();
    assert!(guarded.len() > 40, "{}", guarded.len());
    for r in &guarded {
        let p = valid(r, &t).1;
        for b in bodies {
            let res = send_raw(app, r, &p, None, b).await;
            assert_eq!(
                (res.status.as_u16(), res.reason()),
                (401, "AUTHORIZATION_FAILED".to_owned()),
                "{} {} without a session, body {b:?}: {}",
                r.method,
                r.path,
                res.text
            );
        }
    }
    // Every console row: a customer's session, 403 whatever the body.
    let rows = console_rows();
    assert!(rows.len() >= 30, "{}", rows.len());
    for (r, _) in rows {
        let p = valid(r, &t).1;
        for b in bodies {
            let res = send_raw(app, r, &p, Some(&customer), b).await;
            assert_eq!(
                (res.status.as_u16(), res.reason()),
                (403, "PERMISSION_DENIED".to_owned()),
                "{} {} as a customer, body {b:?}: {}",
                r.method,
                r.path,
                res.text
            );
        }
    }
}

#[tokio::test]
async fn a_customer_gets_403_from_every_console_row_whatever_its_body_and_no_session_401() {
    refused_before_the_body(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_customer_gets_403_from_every_console_row_whatever_its_body() {
    let (_local, app) = dynamo("gate_order").await;
    refused_before_the_body(&app).await;
}

// ---- every change: a second factor, a fresh proof, a reason ----

async fn every_change_needs_all_three(app: &TestApp) {
    // An admin whose session's proof will be stale, one without a second factor, one fresh.
    let (_, stale) = app.staffer("stale", Some(Role::Admin)).await;
    let (_, fresh_setup) = app.staffer("setup", Some(Role::Admin)).await;
    let (app_id, endpoint) = app_and_endpoint(app, &fresh_setup).await;
    let (target, _) = app.staffer("target", None).await;
    app.clock.advance(6 * 60);
    // The stale session keeps the console in use (a read), its proof is 6 minutes old.
    app.admin_get("/admin/me", &stale).await.ok(200);
    app.sign_up("plainadmin", "plainadmin@example.com").await;
    app.grant_role("plainadmin@example.com", Role::Admin).await;
    let password_only = app.sign_in("plainadmin@example.com", PASSWORD).await;
    let (_, fresh) = app.staffer("fresh", Some(Role::Admin)).await;
    let t = Targets {
        user: target,
        app: app_id.clone(),
        endpoint,
        day: app.today(),
    };
    let before = audit_count(app).await;
    let apps_before = app.list_registry(&fresh).await.ok(200);
    let rows: Vec<_> = console_rows()
        .into_iter()
        .filter(|(r, _)| changes(r))
        .collect();
    assert!(rows.len() >= 20, "{}", rows.len());
    let registry_rows = rows
        .iter()
        .filter(|(r, _)| r.path.starts_with("/admin/apps"))
        .count();
    assert_eq!(registry_rows, 9, "apps (5), webhooks (3), replay (1)");
    for (r, _) in &rows {
        let what = format!("{} {}", r.method, r.path);
        let (m, p, body) = valid(r, &t);
        send(app, m.clone(), &p, Some(&password_only), body.as_ref())
            .await
            .error(403, "CONSOLE_MFA_REQUIRED");
        let res = send(app, m.clone(), &p, Some(&stale), body.as_ref()).await;
        assert_eq!(
            res.reason(),
            "REAUTH_REQUIRED",
            "{what} with a stale proof: {}",
            res.text
        );
        if takes_reason(r) {
            for reason in [None, Some(""), Some("   ")] {
                let mut b = body.clone().expect("a body with a reason");
                match reason {
                    None => b.as_object_mut().expect("object").remove("reason"),
                    Some(x) => b
                        .as_object_mut()
                        .expect("object")
                        .insert("reason".into(), json!(x)),
                };
                let res = send(app, m.clone(), &p, Some(&fresh), Some(&b)).await;
                let e = res.error(400, "INVALID_PARAMETER");
                assert_eq!(
                    e["field"], "reason",
                    "{what} with reason {reason:?}: {}",
                    res.text
                );
            }
        }
    }
    assert_eq!(
        audit_count(app).await,
        before,
        "nothing refused was recorded"
    );
    assert_eq!(
        app.list_registry(&fresh).await.ok(200),
        apps_before,
        "nor changed"
    );
    // The same requests with all three pass (the walk of console.rs checks each row's answer).
    let (m, p, body) = valid(
        rows.iter()
            .find(|(r, _)| r.path == "/admin/apps")
            .expect("row")
            .0,
        &t,
    );
    send(app, m, &p, Some(&fresh), body.as_ref()).await.ok(201);
}

#[tokio::test]
async fn every_change_on_apps_webhooks_and_replay_needs_a_second_factor_a_fresh_proof_and_a_reason()
{
    every_change_needs_all_three(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_every_change_needs_a_second_factor_a_fresh_proof_and_a_reason() {
    let (_local, app) = dynamo("gate_changes").await;
    every_change_needs_all_three(&app).await;
}

// ---- a password alone opens nothing for an account with a second factor ----

async fn passkey_only_admin(app: &TestApp) {
    let mail = "pk-admin@example.com";
    let user_id = app.sign_up("pkadmin", mail).await;
    let first = app.sign_in(mail, PASSWORD).await;
    let mut auth = passkeys::soft(7);
    passkeys::add(app, &first, &mut auth).await.ok(200);
    app.grant_role(mail, Role::Admin).await;
    // The password alone: a session, which no console row accepts.
    let token = app.sign_in(mail, PASSWORD).await;
    let (_, setup) = app.staffer("setup", Some(Role::Admin)).await;
    let (app_id, endpoint) = app_and_endpoint(app, &setup).await;
    let t = Targets {
        user: user_id.clone(),
        app: app_id,
        endpoint,
        day: app.today(),
    };
    for (r, _) in console_rows() {
        let (m, p, body) = valid(r, &t);
        let res = send(app, m, &p, Some(&token), body.as_ref()).await;
        assert_eq!(
            (res.status.as_u16(), res.reason()),
            (403, "CONSOLE_MFA_REQUIRED".to_owned()),
            "{} {} with the password alone: {}",
            r.method,
            r.path,
            res.text
        );
    }
    // The passkey's sign-in is a second factor: the console opens.
    let body = passkeys::assertion(app, &mut auth, &user_id).await;
    let signed = app.passkey_login(&body).await.ok(200);
    let pk = signed["token"].as_str().expect("token");
    assert_eq!(
        app.admin_get("/admin/me", pk).await.ok(200)["role"],
        "admin"
    );
}

#[tokio::test]
async fn a_passkey_only_admins_password_session_is_refused_on_every_console_row() {
    passkey_only_admin(&passkeys::app().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_passkey_only_admins_password_session_is_refused() {
    let local = Arc::new(DynamoLocal::start().await);
    passkey_only_admin(&passkeys::app_on(&local, "gate_passkey").await).await;
}

// ---- no handler names its role ----

/// The handlers' source: none names a console role or calls the gate itself (the role is the
/// row's, read by `extract::Op`); the table alone says `Console(<role>)`.
#[test]
fn no_handler_names_a_role_or_calls_the_gate() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/routes");
    let mut seen = 0;
    for entry in std::fs::read_dir(&dir).expect("routes") {
        let path = entry.expect("entry").path();
        if path.extension().and_then(|e| e.to_str()) != Some("rs") {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("source");
        seen += 1;
        for banned in [
            "gate(",
            "Role::Viewer",
            "Role::Operator",
            "Role::Admin",
            "require_admin",
        ] {
            assert!(
                !text.contains(banned),
                "{} contains `{banned}`: a console handler takes `extract::Op` (the row's role)",
                path.display()
            );
        }
        let console_file = text.contains("Op(");
        if console_file {
            assert!(
                !text.contains("Authed("),
                "{}: a console handler takes `Op`, never `Authed`",
                path.display()
            );
        }
    }
    assert!(seen > 10, "{seen} files");
}

// ---- the audit entry is in the change's transaction ----

/// A store whose transactions' audit puts fail their condition while `broken` is set (as if
/// the entry's key were taken): the rest of the same transaction must not be written.
struct BrokenAudit {
    inner: Arc<dyn Store>,
    broken: Arc<AtomicBool>,
}

#[async_trait::async_trait]
impl Store for BrokenAudit {
    async fn get(&self, key: &Key) -> Result<Option<Item>, StoreError> {
        self.inner.get(key).await
    }
    async fn get_many(&self, keys: &[Key]) -> Result<Vec<Option<Item>>, StoreError> {
        self.inner.get_many(keys).await
    }
    async fn put(&self, item: Item, cond: Option<Cond>) -> Result<(), StoreError> {
        self.inner.put(item, cond).await
    }
    async fn update(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Item, StoreError> {
        self.inner.update(key, ops, cond).await
    }
    async fn update_or_current(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.inner.update_or_current(key, ops, cond).await
    }
    async fn update_once(
        &self,
        key: &Key,
        ops: Vec<Update>,
        cond: Option<Cond>,
        token: &ciam_store::Token,
    ) -> Result<Result<Item, Option<Item>>, StoreError> {
        self.inner.update_once(key, ops, cond, token).await
    }
    async fn delete(&self, key: &Key, cond: Option<Cond>) -> Result<(), StoreError> {
        self.inner.delete(key, cond).await
    }
    async fn transact(&self, ops: Vec<TxOp>) -> Result<(), StoreError> {
        let broken = self.broken.load(Ordering::SeqCst);
        let ops = ops
            .into_iter()
            .map(|op| match op {
                TxOp::Put { item, .. } if broken && item.key.pk.starts_with("AUDIT#") => {
                    TxOp::Put {
                        item,
                        cond: Some(Cond::Exists),
                    }
                }
                other => other,
            })
            .collect();
        self.inner.transact(ops).await
    }
    async fn query(&self, q: Query) -> Result<Vec<Item>, StoreError> {
        self.inner.query(q).await
    }
    async fn ensure_schema(&self) -> Result<(), StoreError> {
        self.inner.ensure_schema().await
    }
}

/// The partitions a registry change writes.
fn registry_write(k: &Key) -> bool {
    ["APPS", "AUDIT#", "WHE#", "WHQ"]
        .iter()
        .any(|p| k.pk.starts_with(p))
        || k.pk.contains("APPNAME")
}

async fn audit_in_the_transaction(app: &TestApp, broken: &AtomicBool) {
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (app_id, endpoint) = app_and_endpoint(app, &admin).await;
    let t = Targets {
        user: String::new(),
        app: app_id,
        endpoint,
        day: app.today(),
    };
    let before = audit_count(app).await;
    let listed = app.list_registry(&admin).await.ok(200);
    broken.store(true, Ordering::SeqCst);
    let written = app.store.written().len();
    let rows: Vec<_> = console_rows()
        .into_iter()
        .filter(|(r, _)| changes(r) && r.path.starts_with("/admin/apps"))
        .collect();
    assert_eq!(rows.len(), 9, "apps (5), webhooks (3), replay (1)");
    for (r, _) in rows {
        let (m, p, body) = valid(r, &t);
        let res = send(app, m, &p, Some(&admin), body.as_ref()).await;
        assert!(
            !res.status.is_success(),
            "{} {} answered {} although its audit entry failed: {}",
            r.method,
            r.path,
            res.status,
            res.text
        );
        let left: Vec<_> = app.store.written()[written..]
            .iter()
            .filter(|k| registry_write(k))
            .cloned()
            .collect();
        assert!(left.is_empty(), "{} {} left {left:?}", r.method, r.path);
    }
    broken.store(false, Ordering::SeqCst);
    assert_eq!(audit_count(app).await, before);
    assert_eq!(app.list_registry(&admin).await.ok(200), listed);
    let p = format!("/admin/apps/{}/webhooks", t.app);
    let eps = app.admin_get(&p, &admin).await.ok(200);
    assert_eq!(
        eps["endpoints"][0]["description"], "",
        "the endpoint is as it was"
    );
}

/// A store being made, as `TestApp::spawn_on` takes it.
type Made = std::pin::Pin<Box<dyn std::future::Future<Output = Arc<dyn Store>> + Send>>;

/// `make`'s store behind [`BrokenAudit`], and its switch.
fn broken_app(
    make: impl FnOnce(ciam_core::ManualClock) -> Made + Send + 'static,
) -> (Arc<AtomicBool>, impl FnOnce(ciam_core::ManualClock) -> Made) {
    let broken = Arc::new(AtomicBool::new(false));
    let flag = broken.clone();
    (broken, move |clock| {
        Box::pin(async move {
            let inner = make(clock).await;
            let store: Arc<dyn Store> = Arc::new(BrokenAudit {
                inner,
                broken: flag,
            });
            store
        }) as Made
    })
}

#[tokio::test]
async fn a_registry_change_whose_audit_entry_fails_leaves_nothing() {
    let (broken, make) = broken_app(|clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(
                ciam_store::sqlite::SqliteStore::in_memory(Arc::new(clock)).expect("store"),
            );
            store
        })
    });
    let app = TestApp::spawn_on(make).await;
    audit_in_the_transaction(&app, &broken).await;
}

#[tokio::test]
async fn on_dynamodb_a_registry_change_whose_audit_entry_fails_leaves_nothing() {
    let local = Arc::new(DynamoLocal::start().await);
    let kept = local.clone();
    let (broken, make) = broken_app(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(kept.store("gate_audit", Arc::new(clock)).await);
            store
        })
    });
    let app = TestApp::spawn_on(make).await;
    audit_in_the_transaction(&app, &broken).await;
}
