//! The operator console (docs/console-design.md): the gate on every `/admin` row (a walk of
//! the route table with no token, a customer and each role), the second factor, the console's
//! idle time and fresh proofs, roles granted and revoked, finding accounts, the masked page,
//! revealing (audited) and the audit log.

use crate::helpers::{json_request, request_as, TestApp, TestResponse, PASSWORD};
use crate::two_factor::enrolled_in;
use axum::body::Body;
use axum::http::Method;
use ciam_api::{all_routes, Auth};
use ciam_core::console::audit::day_name;
use ciam_core::console::Role;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::Store;
use serde_json::{json, Value};
use std::sync::Arc;

impl TestApp {
    pub(crate) async fn admin_call(
        &self,
        method: Method,
        p: &str,
        token: Option<&str>,
        body: Option<&Value>,
    ) -> TestResponse {
        let req = match body {
            Some(b) => json_request(method, p, token, b),
            None => request_as(method, p, token)
                .body(Body::empty())
                .expect("request"),
        };
        self.call(req).await
    }

    pub(crate) async fn admin_get(&self, p: &str, token: &str) -> TestResponse {
        self.admin_call(Method::GET, p, Some(token), None).await
    }

    /// A signed-up account holding `role` (None: a customer), signed in with a second factor:
    /// its user id and token.
    pub(crate) async fn staffer(&self, name: &str, role: Option<Role>) -> (String, String) {
        let mail = format!("{name}@example.com");
        let id = self.sign_up(name, &mail).await;
        if let Some(role) = role {
            self.grant_role(&mail, role).await;
        }
        let token = self.sign_in(&mail, PASSWORD).await;
        self.with_second_factor(&id).await;
        (id, token)
    }

    pub(crate) fn today(&self) -> String {
        day_name(self.now().div_euclid(86_400))
    }
}

/// The console rows, each with its role.
fn console_rows() -> Vec<(&'static ciam_api::RouteDef, Role)> {
    all_routes()
        .filter(|r| r.path.starts_with("/admin"))
        .map(|r| match r.auth {
            Auth::Console(role) => (r, role),
            other => panic!("{} {} is a console path with {other:?}", r.method, r.path),
        })
        .collect()
}

/// The request a row is walked with: its path with `target` as the user id and `apps.0` as the
/// app id (`apps.1` for deleting one), `endpoints.0` as the endpoint id (`endpoints.1` for
/// deleting one, of `apps.0`), a valid query and body.
fn walk_request(
    r: &ciam_api::RouteDef,
    target: &str,
    day: &str,
    apps: (&str, &str),
    endpoints: (&str, &str),
    org: &str,
) -> (Method, String, Option<Value>) {
    let webhook = r.path.contains("{endpointId}");
    let app = if r.method == "DELETE" && !webhook {
        apps.1
    } else {
        apps.0
    };
    let endpoint = if r.method == "DELETE" {
        endpoints.1
    } else {
        endpoints.0
    };
    let mut p = r
        .path
        .replace("{userId}", target)
        .replace("{appId}", app)
        .replace("{endpointId}", endpoint)
        .replace("{orgId}", org)
        .replace("{invId}", "inv_0000000000000000")
        .replace("{domain}", "walk.example.com")
        .replace("{connId}", "conn_0000000000000000");
    match r.path {
        "/admin/accounts" => p.push_str(&format!("?userId={target}")),
        "/admin/organizations/suggestions" => p.push_str("?q=acme"),
        "/admin/audit" => p.push_str(&format!("?from={day}&to={day}")),
        "/admin/directory" => p.push_str(&format!("?day={day}")),
        "/admin/search" => p.push_str("?q=target"),
        "/admin/held" => p.push_str("?status=locked"),
        _ => {}
    }
    let body = match (r.method, r.path) {
        ("PUT", "/admin/roles/{userId}") => Some(json!({ "role": "viewer" })),
        ("PUT", "/admin/accounts/{userId}/notes") => Some(json!({ "notes": "the role walk" })),
        ("PUT", "/admin/accounts/{userId}/identity") => {
            Some(json!({ "reason": "the role walk", "mail": "walked@example.com" }))
        }
        ("POST", "/admin/accounts/{userId}/unlink-identity") => {
            Some(json!({ "reason": "the role walk", "provider": "mock" }))
        }
        ("POST", "/admin/apps") => Some(json!({
            "name": { "zh-CN": "漫步", "en-US": "Walk" },
            "serviceUrls": ["https://walk.example.com/cb"],
            "reason": "the role walk",
        })),
        ("POST", "/admin/apps/{appId}/webhooks") => Some(json!({
            "url": "https://hooks.example.com/walk",
            "events": ["user.updated"],
            "reason": "the role walk",
        })),
        ("POST", "/admin/apps/{appId}/webhooks/{endpointId}/replay") => {
            Some(json!({ "from": 0, "to": 1, "reason": "the role walk" }))
        }
        ("POST", "/admin/organizations") => {
            Some(json!({ "reason": "the role walk", "nameEn": "Walk" }))
        }
        // The target owns the walked organization: made owner again, nothing changes.
        ("POST", "/admin/organizations/{orgId}/members/{userId}") => {
            Some(json!({ "reason": "the role walk", "role": "owner" }))
        }
        ("POST", "/admin/organizations/{orgId}/invitations") => {
            Some(json!({ "reason": "the role walk", "to": "invited@example.com" }))
        }
        ("POST", "/admin/organizations/{orgId}/domains") => Some(json!({
            "reason": "the role walk", "domain": "walk.example.com", "method": "mail",
        })),
        ("PATCH", "/admin/organizations/{orgId}/domains/{domain}") => {
            Some(json!({ "reason": "the role walk", "enrolment": "off" }))
        }
        ("POST", "/admin/organizations/{orgId}/domains/{domain}/code") => {
            Some(json!({ "reason": "the role walk", "mail": "admin@walk.example.com" }))
        }
        ("PUT", "/admin/organizations/{orgId}/domains/{domain}/sign-in") => {
            Some(json!({ "reason": "the role walk", "connId": null }))
        }
        ("POST", "/admin/organizations/{orgId}/connections") => Some(json!({
            "reason": "the role walk", "protocol": "oidc", "nameEn": "Walk",
            "settings": { "issuer": "https://idp.walk.example", "clientId": "walk" },
            "secret": "walk-secret",
        })),
        ("PATCH", "/admin/organizations/{orgId}/connections/{connId}") => {
            Some(json!({ "reason": "the role walk", "jit": "off" }))
        }
        ("POST" | "PATCH", _)
        | ("DELETE", "/admin/organizations/{orgId}/connections/{connId}")
        | ("DELETE", "/admin/apps/{appId}")
        | ("DELETE", "/admin/organizations/{orgId}/invitations/{invId}")
        | ("DELETE", "/admin/apps/{appId}/webhooks/{endpointId}") => {
            Some(json!({ "reason": "the role walk" }))
        }
        _ => None,
    };
    (r.method.parse().expect("method"), p, body)
}

/// Every console row (and so a new one too): 401 without a token, 403 PERMISSION_DENIED for a
/// customer and for each role below the row's, an answer (not 403) at and above it.
async fn walk(app: &TestApp, only: &[&str]) {
    let rows: Vec<_> = console_rows()
        .into_iter()
        .filter(|(r, _)| only.is_empty() || only.contains(&r.path))
        .collect();
    assert!(!rows.is_empty());
    let (target, _) = app.staffer("target", None).await;
    let (_, customer) = app.staffer("customer", None).await;
    let mut staff = Vec::new();
    for role in Role::ALL {
        staff.push((role, app.staffer(role.as_str(), Some(role)).await.1));
    }
    let day = app.today();
    let admin = &staff[2].1;
    let mut ids = Vec::new();
    for name in ["Walked", "Deleted"] {
        let body = json!({
            "name": { "zh-CN": name, "en-US": name },
            "serviceUrls": [format!("https://{}.example.com/cb", name.to_lowercase())],
        });
        ids.push(
            app.create_app(admin, &body).await.ok(201)["app"]["appId"]
                .as_str()
                .unwrap()
                .to_owned(),
        );
    }
    let apps = (ids[0].as_str(), ids[1].as_str());
    let mut eps = Vec::new();
    for n in 0..2 {
        let p = format!("/admin/apps/{}/webhooks", apps.0);
        let body = json!({
            "url": format!("https://hooks.example.com/{n}"),
            "events": ["user.updated"],
            "reason": "the role walk",
        });
        let made = app
            .admin_call(Method::POST, &p, Some(admin), Some(&body))
            .await
            .ok(201);
        eps.push(made["endpoint"]["endpointId"].as_str().unwrap().to_owned());
    }
    let endpoints = (eps[0].as_str(), eps[1].as_str());
    let made = json!({ "reason": "the role walk", "nameEn": "Walked", "ownerId": target });
    let org = app
        .admin_call(
            Method::POST,
            "/admin/organizations",
            Some(admin),
            Some(&made),
        )
        .await
        .ok(201)["orgId"]
        .as_str()
        .expect("orgId")
        .to_owned();
    for (r, need) in rows {
        let (method, p, body) = walk_request(r, &target, &day, apps, endpoints, &org);
        let what = format!("{} {} ({need:?})", r.method, r.path);
        let res = app
            .admin_call(method.clone(), &p, None, body.as_ref())
            .await;
        assert_eq!(
            res.reason(),
            "AUTHORIZATION_FAILED",
            "{what} without a token"
        );
        assert_eq!(res.status.as_u16(), 401, "{what}");
        app.admin_call(method.clone(), &p, Some(&customer), body.as_ref())
            .await
            .error(403, "PERMISSION_DENIED");
        for (role, token) in &staff {
            // A reset code is sent at most once a minute to one address: each role sends one
            // to an account of its own.
            let p = if r.path.ends_with("/send-reset-code") && *role >= need {
                let (own, _) = app.staffer(&format!("reset{}", role.as_str()), None).await;
                walk_request(r, &own, &day, apps, endpoints, &org).1
            } else if (r.path.ends_with("/approve") || r.path.ends_with("/refuse")) && *role >= need
            {
                // A request is decided once: each role decides one of its own.
                let asked = app
                    .request_org(&customer, &json!({ "nameEn": role.as_str() }))
                    .await
                    .ok(201)["orgId"]
                    .as_str()
                    .expect("orgId")
                    .to_owned();
                walk_request(r, &target, &day, apps, endpoints, &asked).1
            } else if r.path.ends_with("/invitations/{invId}") && *role >= need {
                // An invitation is revoked once: each role revokes one of its own.
                let inv = app
                    .admin_call(
                        Method::POST,
                        &format!("/admin/organizations/{org}/invitations"),
                        Some(token),
                        Some(&json!({ "reason": "the role walk", "to": "walked@example.com" })),
                    )
                    .await
                    .ok(201)["invId"]
                    .as_str()
                    .expect("invId")
                    .to_owned();
                p.replace("inv_0000000000000000", &inv)
            } else {
                p.clone()
            };
            let res = app
                .admin_call(method.clone(), &p, Some(token), body.as_ref())
                .await;
            if *role < need {
                assert_eq!(
                    (res.status.as_u16(), res.reason()),
                    (403, "PERMISSION_DENIED".to_owned()),
                    "{what} as {role:?}: {}",
                    res.text
                );
            } else if r.path.contains("/domains") || r.path.contains("/connections/") {
                // The gate only: a domain's or connection's state decides the answer (removed
                // once, a code needs a captcha, DNS is not there, no such connection), and
                // org_domain_routes.rs and org_connection_routes.rs walk those routes with each
                // role and state. Past the gate: no 401 or 403.
                assert!(
                    ![401, 403].contains(&res.status.as_u16()),
                    "{what} as {role:?}: {} {}",
                    res.status,
                    res.text
                );
            } else {
                assert!(
                    res.status.is_success(),
                    "{what} as {role:?}: {} {}",
                    res.status,
                    res.text
                );
            }
        }
    }
}

#[tokio::test]
async fn every_console_row_refuses_a_customer_and_the_roles_below_its_own() {
    let rows = console_rows();
    assert!(rows.len() >= 8, "{}", rows.len());
    walk(&TestApp::spawn().await, &[]).await;
}

#[tokio::test]
async fn on_dynamodb_every_console_row_is_gated_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    let (local2, table) = (local.clone(), "console".to_owned());
    let app = TestApp::spawn_on(move |clock| {
        Box::pin(async move {
            let store: Arc<dyn Store> = Arc::new(local2.store(&table, Arc::new(clock)).await);
            store
        })
    })
    .await;
    walk(&app, &[]).await;
}

#[tokio::test]
async fn a_second_factor_sign_in_enters_and_a_password_only_one_is_told_to_turn_it_on() {
    let e = enrolled_in(TestApp::spawn().await).await;
    e.app.grant_role("tfa@example.com", Role::Operator).await;
    // The enrolment's session was signed in by password only.
    e.app
        .admin_get("/admin/me", &e.token)
        .await
        .error(403, "CONSOLE_MFA_REQUIRED");
    e.next_step();
    let ch = e.challenge().await;
    let body = e.app.login_totp(&ch, &e.code()).await.ok(200);
    let token = body["token"].as_str().expect("token");
    let me = e.app.admin_get("/admin/me", token).await.ok(200);
    assert_eq!(me["role"], "operator");
    assert_eq!(me["mail"], "tfa@example.com");
    // A customer without a role is refused for the role first.
    let app = &e.app;
    app.sign_up("plain", "plain@example.com").await;
    let plain = app.sign_in("plain@example.com", PASSWORD).await;
    app.admin_get("/admin/me", &plain)
        .await
        .error(403, "PERMISSION_DENIED");
}

#[tokio::test]
async fn changes_need_a_fresh_proof_and_fifteen_idle_minutes_end_console_use() {
    let e = enrolled_in(TestApp::spawn().await).await;
    let app = &e.app;
    app.grant_role("tfa@example.com", Role::Operator).await;
    e.next_step();
    let ch = e.challenge().await;
    let token = app.login_totp(&ch, &e.code()).await.ok(200)["token"]
        .as_str()
        .expect("token")
        .to_owned();
    let (target, _) = app.staffer("target", None).await;
    let reveal = |reason: &str| json!({ "reason": reason });
    let p = format!("/admin/accounts/{target}/reveal");
    app.admin_call(Method::POST, &p, Some(&token), Some(&reveal("asked")))
        .await
        .ok(200);

    // Six minutes on, reading still works; a change needs a fresh proof.
    app.clock.advance(6 * 60);
    app.admin_get("/admin/me", &token).await.ok(200);
    app.admin_call(Method::POST, &p, Some(&token), Some(&reveal("asked")))
        .await
        .error(403, "REAUTH_REQUIRED");
    e.next_step();
    app.totp_verify(&token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    app.admin_call(Method::POST, &p, Some(&token), Some(&reveal("asked")))
        .await
        .ok(200);

    // Fourteen minutes without a console request: still in (the session's own idle deadline
    // is 30 minutes).
    app.clock.advance(14 * 60);
    app.admin_get("/admin/me", &token).await.ok(200);
    // Then 16 minutes more: console use has ended, the session itself has not.
    app.clock.advance(16 * 60);
    app.admin_get("/admin/me", &token)
        .await
        .error(403, "REAUTH_REQUIRED");
    app.get_info(&token).await.ok(200);
    // A fresh proof starts it again.
    e.next_step();
    app.totp_verify(&token, &json!({ "code": e.code() }))
        .await
        .ok(200);
    app.admin_get("/admin/me", &token).await.ok(200);
}

#[tokio::test]
async fn an_admin_grants_and_revokes_roles_and_a_revoked_role_ends_access_at_once() {
    let app = TestApp::spawn().await;
    let (admin_id, admin) = app.staffer("boss", Some(Role::Admin)).await;
    let (ann, ann_token) = app.staffer("ann", None).await;
    app.admin_get("/admin/me", &ann_token)
        .await
        .error(403, "PERMISSION_DENIED");

    let p = format!("/admin/roles/{ann}");
    let put = |role: &str| json!({ "role": role });
    let body = app
        .admin_call(Method::PUT, &p, Some(&admin), Some(&put("operator")))
        .await
        .ok(200);
    assert_eq!(body, json!({ "userId": ann, "role": "operator" }));
    // Entries of one second are in no particular order: the revocation comes a second later.
    app.clock.advance(1);
    assert_eq!(
        app.admin_get("/admin/me", &ann_token).await.ok(200)["role"],
        "operator"
    );
    app.admin_call(Method::PUT, &p, Some(&admin), Some(&put("root")))
        .await
        .error(400, "INVALID_PARAMETER");

    // The roles screen: one query of the index.
    let holders = app.admin_get("/admin/roles", &admin).await.ok(200)["holders"].clone();
    let mut got: Vec<(String, String, String)> = holders
        .as_array()
        .expect("holders")
        .iter()
        .map(|h| {
            let s = |n: &str| h[n].as_str().unwrap_or_default().to_owned();
            (s("userId"), s("role"), s("grantedBy"))
        })
        .collect();
    got.sort();
    let mut want = vec![
        (admin_id.clone(), "admin".to_owned(), "cli".to_owned()),
        (ann.clone(), "operator".to_owned(), admin_id.clone()),
    ];
    want.sort();
    assert_eq!(got, want);
    assert_eq!(
        app.user_item(&ann).await.expect("user").strings("roles"),
        vec!["operator".to_owned()]
    );

    // Revoked: refused on the very next request, gone from the index and the user item.
    app.admin_call(Method::DELETE, &p, Some(&admin), None)
        .await
        .ok(200);
    app.admin_get("/admin/me", &ann_token)
        .await
        .error(403, "PERMISSION_DENIED");
    let holders = app.admin_get("/admin/roles", &admin).await.ok(200)["holders"].clone();
    assert_eq!(holders.as_array().expect("holders").len(), 1);
    assert!(app
        .user_item(&ann)
        .await
        .expect("user")
        .strings("roles")
        .is_empty());

    // An admin cannot demote or revoke themself; an unknown account is not found.
    let own = format!("/admin/roles/{admin_id}");
    let res = app
        .admin_call(Method::PUT, &own, Some(&admin), Some(&put("viewer")))
        .await;
    assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "userId");
    let res = app
        .admin_call(Method::DELETE, &own, Some(&admin), None)
        .await;
    assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "userId");
    app.admin_call(
        Method::PUT,
        "/admin/roles/0123456789abcdef0123456789abcdef",
        Some(&admin),
        Some(&put("viewer")),
    )
    .await
    .error(404, "ACCOUNT_NOT_FOUND");

    // Both changes are in the audit log.
    let day = app.today();
    let log = app
        .admin_get(
            &format!("/admin/audit?from={day}&to={day}&target={ann}"),
            &admin,
        )
        .await
        .ok(200);
    let actions: Vec<&str> = log["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .map(|e| e["action"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(actions, vec!["role.revoke", "role.grant"]);
}

#[tokio::test]
async fn an_account_is_found_by_its_exact_mail_phone_user_name_or_id() {
    let app = TestApp::spawn().await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    let ann = app.sign_up("AnnLee", "ann@example.com").await;
    let bob = app.sign_up("boblee", "13812345678").await;
    for (query, want) in [
        ("mail=Ann%40Example.com".to_owned(), &ann),
        ("phone=13812345678".to_owned(), &bob),
        ("userName=annlee".to_owned(), &ann),
        (format!("userId={bob}"), &bob),
    ] {
        let body = app
            .admin_get(&format!("/admin/accounts?{query}"), &viewer)
            .await
            .ok(200);
        assert_eq!(&body["account"]["userId"], want, "{query}: {body}");
        assert_eq!(body["account"]["status"], "active");
    }
    let ann_found = app
        .admin_get("/admin/accounts?mail=ann%40example.com", &viewer)
        .await
        .ok(200);
    assert_eq!(ann_found["account"]["mail"], "an***@example.com");
    let bob_found = app
        .admin_get("/admin/accounts?phone=13812345678", &viewer)
        .await
        .ok(200);
    assert_eq!(bob_found["account"]["phone"], "138****5678");
    for query in [
        "mail=nobody%40example.com",
        "phone=13900000000",
        "userName=nobody",
        "userId=0123456789abcdef0123456789abcdef",
    ] {
        app.admin_get(&format!("/admin/accounts?{query}"), &viewer)
            .await
            .error(404, "ACCOUNT_NOT_FOUND");
    }
    for query in ["", "?mail=ann%40example.com&userName=annlee"] {
        let res = app
            .admin_get(&format!("/admin/accounts{query}"), &viewer)
            .await;
        assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "query");
    }
}

#[tokio::test]
async fn the_account_page_is_masked_and_a_reveal_is_audited_with_its_reason() {
    let app = TestApp::spawn().await;
    let (operator_id, operator) = app.staffer("helper", Some(Role::Operator)).await;
    let (_, viewer) = app.staffer("desk", Some(Role::Viewer)).await;
    let ann = app.sign_up("annlee", "ann@example.com").await;
    let ann_token = app.sign_in("ann@example.com", PASSWORD).await;
    app.get_info(&ann_token).await.ok(200);

    let page = app
        .admin_get(&format!("/admin/accounts/{ann}"), &viewer)
        .await;
    assert!(!page.text.contains("ann@example.com"), "{}", page.text);
    let page = page.ok(200);
    assert_eq!(page["userId"], ann.as_str());
    assert_eq!(page["mail"], "an***@example.com");
    assert_eq!(page["status"], "active");
    assert_eq!(page["company"], "Acme Robotics");
    assert_eq!(page["twoFactor"], false);
    assert_eq!(page["passkeys"], 0);
    assert!(
        page["sessions"].as_array().is_some_and(|s| !s.is_empty()),
        "{page}"
    );
    assert!(page["lastSignIn"].is_i64(), "{page}");
    assert!(page["activity"].as_array().is_some_and(|a| !a.is_empty()));
    app.admin_get("/admin/accounts/0123456789abcdef0123456789abcdef", &viewer)
        .await
        .error(404, "ACCOUNT_NOT_FOUND");

    // Revealing: an operator's act, with a reason, recorded.
    let p = format!("/admin/accounts/{ann}/reveal");
    for bad in ["", "   ", &"x".repeat(501)] {
        let res = app
            .admin_call(
                Method::POST,
                &p,
                Some(&operator),
                Some(&json!({ "reason": bad })),
            )
            .await;
        assert_eq!(res.error(400, "INVALID_PARAMETER")["field"], "reason");
    }
    let request_id = "1b4e28ba-2fa1-4d3b-a3f5-ef19b5a7633f";
    let req = crate::helpers::request_as(Method::POST, &p, Some(&operator))
        .header("content-type", "application/json")
        .header("x-request-id", request_id)
        // The address CloudFront saw (in a Lambda, `ciam_lambdas::viewer` puts it here from the
        // entry CloudFront appended); the first X-Forwarded-For entry is the caller's to write
        // and never reaches the audit log.
        .header("cloudfront-viewer-address", "203.0.113.7:443")
        .header("x-forwarded-for", "10.6.6.6, 10.0.0.1")
        .body(Body::from(
            json!({ "reason": "the customer called" }).to_string(),
        ))
        .expect("request");
    let shown = app.call(req).await.ok(200);
    assert_eq!(
        shown,
        json!({ "userId": ann, "mail": "ann@example.com", "phone": null })
    );

    let day = app.today();
    let log = app
        .admin_get(&format!("/admin/audit?from={day}&to={day}"), &viewer)
        .await
        .ok(200);
    let entries = log["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{log}");
    let e = &entries[0];
    assert_eq!(e["actor"], operator_id.as_str());
    assert_eq!(e["actorRole"], "operator");
    assert_eq!(e["action"], "account.reveal");
    assert_eq!(e["target"], ann.as_str());
    assert_eq!(e["reason"], "the customer called");
    assert_eq!(e["requestId"], request_id);
    assert_eq!(e["ip"], "203.0.113.7");
    assert_eq!(e["at"], app.now());
    // Kept for the retention (400 days by default).
    let stored = app
        .store
        .query(ciam_store::Query::partition(format!("AUDIT#{day}")))
        .await
        .expect("query");
    assert_eq!(stored[0].expires_at, Some(app.now() + 400 * 86_400));

    // Filters, and the range's limits.
    for (query, n) in [
        (format!("actor={operator_id}"), 1),
        ("action=account.reveal".to_owned(), 1),
        ("action=role.grant".to_owned(), 0),
        ("target=nobody".to_owned(), 0),
    ] {
        let log = app
            .admin_get(
                &format!("/admin/audit?from={day}&to={day}&{query}"),
                &viewer,
            )
            .await
            .ok(200);
        assert_eq!(
            log["entries"].as_array().expect("entries").len(),
            n,
            "{query}"
        );
    }
    let later = day_name(app.now().div_euclid(86_400) + 31);
    let earlier = day_name(app.now().div_euclid(86_400) - 30);
    app.admin_get(&format!("/admin/audit?from={earlier}&to={day}"), &viewer)
        .await
        .ok(200);
    for query in [
        format!("from={day}&to={later}"),
        format!("from={day}&to={earlier}"),
        format!("from=2026-02-30&to={day}"),
        format!("to={day}"),
    ] {
        app.admin_get(&format!("/admin/audit?{query}"), &viewer)
            .await
            .error(400, "INVALID_PARAMETER");
    }
}

/// The console's lists and numbers over HTTP: accounts by company prefix and by sign-up day,
/// paged; the overview counts the sign-ins and accounts made through the API.
#[tokio::test]
async fn a_viewer_lists_accounts_and_reads_the_numbers() {
    let app = TestApp::spawn().await;
    let (_, viewer) = app.staffer("vera", Some(Role::Viewer)).await;
    app.clock.advance(61);
    app.sign_up("ann", "ann@example.com").await;
    app.login_password("ann@example.com", "Wr0ng!Password")
        .await
        .error(401, "PASSWORD_ERROR");
    app.sign_in("ann@example.com", PASSWORD).await;

    let by_company = app
        .admin_get("/admin/directory?company=ACME", &viewer)
        .await
        .ok(200);
    let names: Vec<&str> = by_company["accounts"]
        .as_array()
        .expect("accounts")
        .iter()
        .filter_map(|a| a["userName"].as_str())
        .collect();
    assert_eq!(
        names,
        ["ann", "vera"],
        "both work at Acme Robotics, newest first"
    );
    assert!(by_company.get("next").is_none());
    let by_day = app
        .admin_get(&format!("/admin/directory?day={}", app.today()), &viewer)
        .await
        .ok(200);
    assert_eq!(by_day["accounts"].as_array().map(Vec::len), Some(2));
    app.admin_get("/admin/directory", &viewer)
        .await
        .error(400, "INVALID_PARAMETER");
    app.admin_get("/admin/directory?day=2026-02-30", &viewer)
        .await
        .error(400, "INVALID_PARAMETER");

    let numbers = app.admin_get("/admin/overview", &viewer).await.ok(200);
    assert_eq!(numbers["accounts"], 2);
    let today = numbers["days"]
        .as_array()
        .and_then(|d| d.last())
        .expect("today");
    assert_eq!(today["day"], app.today().as_str());
    assert_eq!(today["newAccounts"], 2);
    assert_eq!(today["signIns"]["byOutcome"]["wrongSecret"], 1);
    assert!(today["signIns"]["byOutcome"]["success"].as_i64() >= Some(2));
    assert!(today["active"].as_i64() >= Some(2));
}
