//! Partner apps in the console (docs/console-design.md §5) and the audit log's export (§7):
//! each change's effect and audit entry, the roles refused, a secret rotated with a chosen
//! overlap under a partner's stream of ticket verifications with no failure, and the export in
//! CSV and JSON Lines a day per query. On SQLite and on DynamoDB Local.

use crate::apps::{new_app, SERVICE};
use crate::helpers::{TestApp, PASSWORD};
use axum::body::Body;
use axum::http::Method;
use ciam_core::console::audit::{self, day_name, RequestFacts};
use ciam_core::console::{Operator, Role};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Key, Store};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// The app on DynamoDB Local, with the process (it stops when dropped).
async fn dynamo(table: &str) -> (Arc<DynamoLocal>, TestApp) {
    let local = Arc::new(DynamoLocal::start().await);
    let (kept, table) = (local.clone(), table.to_owned());
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local.store(&table, Arc::new(clock)).await);
            store
        })
    })
    .await;
    (kept, app)
}

impl TestApp {
    async fn audit_for(&self, token: &str, target: &str) -> Vec<Value> {
        let day = self.today();
        let p = format!("/admin/audit?from={day}&to={day}&target={target}");
        self.admin_get(&p, token).await.ok(200)["entries"]
            .as_array()
            .cloned()
            .expect("entries")
    }

    /// A registered app through the console: its id and secret.
    pub(crate) async fn console_app(&self, admin: &str, name: &str) -> (String, String) {
        let mut body = new_app(name);
        body["reason"] = json!("a new partner");
        let res = self
            .admin_call(Method::POST, "/admin/apps", Some(admin), Some(&body))
            .await
            .ok(201);
        (
            res["app"]["appId"].as_str().expect("appId").to_owned(),
            res["appSecret"].as_str().expect("appSecret").to_owned(),
        )
    }

    async fn rotate(&self, admin: &str, app_id: &str, until: Option<i64>) -> Value {
        let mut body = json!({ "reason": "yearly rotation" });
        if let Some(t) = until {
            body["previousValidUntil"] = json!(t);
        }
        let p = format!("/admin/apps/{app_id}/secret");
        self.admin_call(Method::POST, &p, Some(admin), Some(&body))
            .await
            .ok(200)
    }

    /// A fresh ticket of `user` for the app, verified with `secret`: whether it was accepted.
    async fn verifies(&self, user: &str, app_id: &str, secret: &str) -> bool {
        let t = self.issue_ticket(user, app_id, SERVICE).await.ok(200);
        let c = t["cTicket"].as_str().expect("cTicket");
        self.verify_ticket(app_id, secret, c, SERVICE)
            .await
            .status
            .is_success()
    }
}

async fn manage_apps(app: &TestApp) {
    let (admin_id, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    let (_, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (id, _) = app.console_app(&admin, "Factory").await;
    let created = app.audit_for(&admin, &id).await;
    assert_eq!(created.len(), 1);
    assert_eq!(created[0]["action"], "app.create");
    assert_eq!(created[0]["actor"], admin_id.as_str());
    assert_eq!(created[0]["reason"], "a new partner");

    // Any role reads; the one-app read says what deleting ends.
    let list = app.admin_get("/admin/apps", &viewer).await.ok(200);
    assert!(list["apps"]
        .as_array()
        .unwrap()
        .iter()
        .any(|a| a["appId"] == id.as_str()));
    let one = app
        .admin_get(&format!("/admin/apps/{id}"), &viewer)
        .await
        .ok(200);
    assert_eq!(one["app"]["previousSecretUntil"], Value::Null);
    assert_eq!(one["app"]["secretRotatedAt"], Value::Null);
    assert_eq!(
        one["deleteEnds"],
        json!([
            "tickets",
            "oidcSignIn",
            "embeddedSignIn",
            "appList",
            "consents"
        ])
    );
    assert_eq!(
        one["deleteKeeps"],
        json!(["oidcAccessTokens", "recentApps"])
    );
    app.admin_get("/admin/apps/0000000000000000", &viewer)
        .await
        .error(404, "APPID_NOT_FOUND");

    app.clock.advance(1);
    // Changes are the admin's: a viewer and an operator are refused, nothing is written.
    let p = format!("/admin/apps/{id}");
    let reason = json!({ "reason": "try" });
    for token in [&viewer, &operator] {
        let cases: [(Method, String, Value); 5] = [
            (Method::POST, "/admin/apps".into(), {
                let mut b = new_app("Other");
                b["reason"] = json!("try");
                b
            }),
            (
                Method::PATCH,
                p.clone(),
                json!({ "recommended": true, "reason": "try" }),
            ),
            (Method::POST, format!("{p}/secret"), reason.clone()),
            (
                Method::POST,
                format!("{p}/retire-previous-secret"),
                reason.clone(),
            ),
            (Method::DELETE, p.clone(), reason.clone()),
        ];
        for (m, path, body) in cases {
            app.admin_call(m, &path, Some(token), Some(&body))
                .await
                .error(403, "PERMISSION_DENIED");
        }
    }
    assert_eq!(app.audit_for(&admin, &id).await.len(), 1);

    app.clock.advance(1);
    // A patch: only the fields whose value changes are named.
    let body = json!({
        "description": "Orders, machines and parts",
        "scopes": ["company", "email", "nickname"],
        "recommended": true,
        "reason": "new catalogue",
    });
    let patched = app
        .admin_call(Method::PATCH, &p, Some(&admin), Some(&body))
        .await
        .ok(200);
    assert_eq!(patched["app"]["description"], "Orders, machines and parts");
    assert_eq!(patched["app"]["recommended"], true);
    let last = &app.audit_for(&admin, &id).await[0];
    assert_eq!(last["action"], "app.update");
    assert_eq!(last["detail"], "fields: description,recommended");
    assert_eq!(last["reason"], "new catalogue");
    // A reason is required.
    app.admin_call(
        Method::PATCH,
        &p,
        Some(&admin),
        Some(&json!({ "reason": " " })),
    )
    .await
    .error(400, "INVALID_PARAMETER");

    app.clock.advance(1);
    // Rotation: the overlap's end must be after now and at most 30 days away.
    let now = app.now();
    for bad in [now - 1, now, now + 30 * 86_400 + 1] {
        let body = json!({ "reason": "r", "previousValidUntil": bad });
        let res = app
            .admin_call(
                Method::POST,
                &format!("{p}/secret"),
                Some(&admin),
                Some(&body),
            )
            .await;
        assert_eq!(
            res.error(400, "INVALID_PARAMETER")["field"],
            "previousValidUntil"
        );
    }
    let until = now + 30 * 86_400;
    let rotated = app.rotate(&admin, &id, Some(until)).await;
    assert!(rotated["appSecret"].as_str().is_some_and(|s| s.len() >= 43));
    assert_eq!(rotated["app"]["previousSecretUntil"], until);
    assert_eq!(rotated["app"]["secretRotatedAt"], now);
    let last = &app.audit_for(&admin, &id).await[0];
    assert_eq!(last["action"], "app.rotateSecret");
    let end = ciam_core::console::export::iso(until);
    assert_eq!(last["detail"], format!("previous secret valid until {end}"));
    assert!(!last
        .to_string()
        .contains(rotated["appSecret"].as_str().unwrap()));
    // Absent: 24 hours.
    app.clock.advance(1);
    let now = app.now();
    let rotated = app.rotate(&admin, &id, None).await;
    assert_eq!(rotated["app"]["previousSecretUntil"], now + 24 * 3600);

    app.clock.advance(1);
    let retired = app
        .admin_call(
            Method::POST,
            &format!("{p}/retire-previous-secret"),
            Some(&admin),
            Some(&reason),
        )
        .await
        .ok(200);
    assert_eq!(retired["app"]["previousSecretUntil"], Value::Null);
    assert_eq!(
        app.audit_for(&admin, &id).await[0]["action"],
        "app.retirePreviousSecret"
    );

    app.clock.advance(1);
    // Delete: the app is gone and the entry stays.
    app.admin_call(Method::DELETE, &p, Some(&admin), Some(&reason))
        .await
        .ok(200);
    app.admin_get(&p, &viewer)
        .await
        .error(404, "APPID_NOT_FOUND");
    app.admin_call(Method::DELETE, &p, Some(&admin), Some(&reason))
        .await
        .error(404, "APPID_NOT_FOUND");
    let actions: Vec<String> = app
        .audit_for(&admin, &id)
        .await
        .iter()
        .map(|e| e["action"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(
        actions,
        [
            "app.delete",
            "app.retirePreviousSecret",
            "app.rotateSecret",
            "app.rotateSecret",
            "app.update",
            "app.create"
        ]
    );
    // A new app has no previous secret.
    let (other, _) = app.console_app(&admin, "Mill").await;
    let one = app.get_app(&admin, &other).await.ok(200);
    assert_eq!(one["app"]["previousSecretUntil"], Value::Null);
}

#[tokio::test]
async fn an_admin_manages_apps_in_the_console_each_change_audited() {
    manage_apps(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_an_admin_manages_apps_in_the_console_each_change_audited() {
    let (_local, app) = dynamo("console_apps").await;
    manage_apps(&app).await;
}

/// A partner verifies tickets without pause while the admin rotates with an overlap; it
/// switches to the new secret once it has it: not one verification fails. Then retiring the
/// previous secret ends it, and an overlap's end ends it too.
async fn rotation_under_load(app: TestApp) {
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (id, first) = app.console_app(&admin, "Factory").await;
    app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;

    let secret = Arc::new(Mutex::new(first.clone()));
    let done = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicUsize::new(0));
    let partner = {
        let (app, id, user) = (app.clone(), id.clone(), user.clone());
        let (secret, done, stop) = (secret.clone(), done.clone(), stop.clone());
        tokio::spawn(async move {
            let mut failures = Vec::new();
            while stop.load(Ordering::SeqCst) == 0 {
                let s = secret.lock().unwrap().clone();
                if !app.verifies(&user, &id, &s).await {
                    failures.push(done.load(Ordering::SeqCst));
                }
                done.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
            }
            failures
        })
    };
    let wait_for = |n: usize| {
        let done = done.clone();
        async move {
            while done.load(Ordering::SeqCst) < n {
                tokio::time::sleep(std::time::Duration::from_millis(2)).await;
            }
        }
    };
    wait_for(5).await;
    let rotated = app.rotate(&admin, &id, Some(app.now() + 3600)).await;
    let second = rotated["appSecret"].as_str().unwrap().to_owned();
    // The partner goes on with the old secret for a while, then switches.
    let at = done.load(Ordering::SeqCst);
    wait_for(at + 5).await;
    *secret.lock().unwrap() = second.clone();
    let at = done.load(Ordering::SeqCst);
    wait_for(at + 5).await;
    stop.store(1, Ordering::SeqCst);
    let failures = partner.await.expect("partner");
    assert!(done.load(Ordering::SeqCst) >= 15);
    assert!(failures.is_empty(), "failed verifications at {failures:?}");

    // Both work during the overlap; retiring ends the old one at once.
    assert!(app.verifies(&user, &id, &first).await);
    let p = format!("/admin/apps/{id}/retire-previous-secret");
    let reason = json!({ "reason": "the partner switched" });
    app.admin_call(Method::POST, &p, Some(&admin), Some(&reason))
        .await
        .ok(200);
    assert!(!app.verifies(&user, &id, &first).await);
    assert!(app.verifies(&user, &id, &second).await);

    // An overlap's end ends the previous secret (the injectable clock).
    let until = app.now() + 600;
    let third = app.rotate(&admin, &id, Some(until)).await["appSecret"]
        .as_str()
        .unwrap()
        .to_owned();
    app.clock.advance(599);
    assert!(app.verifies(&user, &id, &second).await);
    app.clock.advance(1);
    assert!(!app.verifies(&user, &id, &second).await);
    assert!(app.verifies(&user, &id, &third).await);
}

#[tokio::test]
async fn a_rotation_under_a_stream_of_verifications_fails_none() {
    rotation_under_load(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_rotation_under_a_stream_of_verifications_fails_none() {
    let (_local, app) = dynamo("console_rotation").await;
    rotation_under_load(app).await;
}

/// A second rotation during an overlap makes the current secret the previous one: the oldest
/// stops at once.
#[tokio::test]
async fn a_second_rotation_during_an_overlap_ends_the_oldest_secret() {
    let app = TestApp::spawn().await;
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (id, first) = app.console_app(&admin, "Factory").await;
    app.sign_up("ann", "ann@example.com").await;
    let user = app.sign_in("ann@example.com", PASSWORD).await;
    let second = app.rotate(&admin, &id, Some(app.now() + 3600)).await["appSecret"]
        .as_str()
        .unwrap()
        .to_owned();
    let third = app.rotate(&admin, &id, Some(app.now() + 3600)).await["appSecret"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(!app.verifies(&user, &id, &first).await);
    assert!(app.verifies(&user, &id, &second).await);
    assert!(app.verifies(&user, &id, &third).await);
}

// ---- The audit export ----

/// A minimal RFC 4180 reader: rows of cells, quoted cells may hold commas, quotes and line ends.
fn parse_csv(text: &str) -> Vec<Vec<String>> {
    let mut rows = Vec::new();
    let mut row = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match (quoted, c) {
            (true, '"') if chars.peek() == Some(&'"') => {
                chars.next();
                cell.push('"');
            }
            (true, '"') => quoted = false,
            (true, c) => cell.push(c),
            (false, '"') => quoted = true,
            (false, ',') => row.push(std::mem::take(&mut cell)),
            (false, '\r') if chars.peek() == Some(&'\n') => {
                chars.next();
                row.push(std::mem::take(&mut cell));
                rows.push(std::mem::take(&mut row));
            }
            (false, c) => cell.push(c),
        }
    }
    assert!(
        cell.is_empty() && row.is_empty(),
        "the last line ends with CRLF"
    );
    rows
}

/// Entries written on each of the three days before today's end: (`day-2`, `day-1`, today).
async fn three_days(app: &TestApp) -> (Operator, [String; 3]) {
    let (admin_id, _) = app.staffer("boss", Some(Role::Admin)).await;
    let user = ciam_core::user::User {
        id: admin_id,
        ..Default::default()
    };
    let op = Operator {
        user,
        role: Role::Admin,
        session: Key::new("S", "S"),
    };
    let now = app.now();
    let facts = RequestFacts {
        request_id: "req-1".into(),
        ip: Some("203.0.113.9".into()),
        device: None,
    };
    let mut days = Vec::new();
    for back in [2, 1, 0] {
        app.clock.set(now - back * 86_400);
        days.push(day_name(app.now().div_euclid(86_400)));
        let reason = format!("day {back}, \"quoted\"\nsecond line");
        audit::record(
            &app.ciam,
            &op,
            audit::AuditAction::AppUpdate,
            "app1",
            Some(&reason),
            Some("fields: logo".into()),
            &facts,
        )
        .await
        .unwrap();
        audit::record(
            &app.ciam,
            &op,
            audit::AuditAction::AppDelete,
            "app2",
            Some("=HYPERLINK(\"x\")"),
            Some("-1".into()),
            &facts,
        )
        .await
        .unwrap();
    }
    app.clock.set(now);
    (op, [days[0].clone(), days[1].clone(), days[2].clone()])
}

impl TestApp {
    async fn export(&self, token: &str, query: &str) -> crate::helpers::BinaryResponse {
        let req =
            crate::helpers::request_as(Method::GET, &format!("/admin/audit?{query}"), Some(token))
                .body(Body::empty())
                .unwrap();
        self.call_binary(req).await
    }
}

async fn export_csv_and_jsonl(app: &TestApp) {
    let (_, [d0, d1, d2]) = three_days(app).await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;

    app.store.take_calls();
    let res = app
        .export(&viewer, &format!("from={d0}&to={d2}&format=csv"))
        .await;
    let queries = app
        .store
        .take_calls()
        .iter()
        .filter(|(op, _)| *op == "query")
        .count();
    assert_eq!(queries, 3, "one query a day");
    assert_eq!(res.status.as_u16(), 200);
    assert_eq!(res.header("content-type"), "text/csv; charset=utf-8");
    assert_eq!(
        res.header("content-disposition"),
        format!("attachment; filename=\"ciam-audit-{d0}-{d2}.csv\"")
    );
    let text = String::from_utf8(res.bytes.clone()).unwrap();
    let rows = parse_csv(&text);
    assert_eq!(
        rows[0],
        [
            "time",
            "actor",
            "actorRole",
            "action",
            "target",
            "reason",
            "requestId",
            "ip",
            "detail"
        ]
    );
    assert_eq!(rows.len(), 1 + 6);
    // Newest first: today's two, then the day before's, ...
    assert!(rows[1][0].starts_with(&format!("{d2}T")) && rows[1][0].ends_with('Z'));
    assert!(rows[6][0].starts_with(&format!("{d0}T")));
    let update = rows.iter().find(|r| r[3] == "app.update").unwrap();
    assert_eq!(update[5], "day 0, \"quoted\"\nsecond line");
    assert_eq!(update[2], "admin");
    assert_eq!(update[6], "req-1");
    assert_eq!(update[7], "203.0.113.9");
    let delete = rows.iter().find(|r| r[3] == "app.delete").unwrap();
    assert_eq!(delete[5], "'=HYPERLINK(\"x\")", "formula protected");
    assert_eq!(delete[8], "'-1");

    // JSON Lines, filtered.
    let res = app
        .export(
            &viewer,
            &format!("from={d0}&to={d2}&format=json&action=app.delete&target=app2"),
        )
        .await;
    assert_eq!(res.header("content-type"), "application/jsonl");
    assert_eq!(
        res.header("content-disposition"),
        format!("attachment; filename=\"ciam-audit-{d0}-{d2}.jsonl\"")
    );
    let text = String::from_utf8(res.bytes.clone()).unwrap();
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 3);
    assert!(lines
        .iter()
        .all(|e| e["action"] == "app.delete" && e["target"] == "app2"));
    assert_eq!(
        lines[0]["reason"], "=HYPERLINK(\"x\")",
        "JSON keeps the value as it is"
    );
    assert!(lines[0]["at"].as_i64().unwrap() > lines[2]["at"].as_i64().unwrap());

    // Without a format: today's JSON answer, unchanged.
    let res = app
        .export(&viewer, &format!("from={d1}&to={d1}"))
        .await
        .as_text();
    assert_eq!(res.ok(200)["entries"].as_array().unwrap().len(), 2);

    // 31 days at most; a wrong format is refused.
    let today = app.now().div_euclid(86_400);
    let (from31, from32) = (day_name(today - 30), day_name(today - 31));
    app.store.take_calls();
    let res = app
        .export(&viewer, &format!("from={from31}&to={d2}&format=csv"))
        .await;
    assert_eq!(res.status.as_u16(), 200);
    let queries = app
        .store
        .take_calls()
        .iter()
        .filter(|(op, _)| *op == "query")
        .count();
    assert_eq!(queries, 31);
    let res = app
        .export(&viewer, &format!("from={from32}&to={d2}&format=csv"))
        .await
        .as_text();
    assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "to");
    let res = app
        .export(&viewer, &format!("from={d0}&to={d2}&format=xml"))
        .await
        .as_text();
    assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "format");
    // A customer gets nothing.
    let (_, customer) = app.staffer("customer", None).await;
    app.export(&customer, &format!("from={d0}&to={d2}&format=csv"))
        .await
        .as_text()
        .error(403, "PERMISSION_DENIED");
}

#[tokio::test]
async fn the_audit_export_is_csv_or_json_lines_a_day_per_query() {
    export_csv_and_jsonl(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_audit_export_is_csv_or_json_lines_a_day_per_query() {
    let (_local, app) = dynamo("console_export").await;
    export_csv_and_jsonl(&app).await;
}

/// The retention setting: each entry's `expiresAt` is `audit_retention_days` after it.
#[tokio::test]
async fn audit_entries_expire_after_the_retention_setting() {
    let app = TestApp::spawn()
        .await
        .configure(|c| c.audit_retention_days = 30);
    let (_, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (id, _) = app.console_app(&admin, "Factory").await;
    let entry = app.audit_for(&admin, &id).await[0].clone();
    let day = day_name(app.now().div_euclid(86_400));
    let items = app
        .store
        .query(ciam_store::Query::partition(format!("AUDIT#{day}")))
        .await
        .unwrap();
    let item = items
        .iter()
        .find(|i| i.s("target") == Some(id.as_str()))
        .unwrap();
    assert_eq!(
        item.expires_at,
        Some(entry["at"].as_i64().unwrap() + 30 * 86_400)
    );
}
