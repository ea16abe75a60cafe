//! An organization's sign-in connections over HTTP (docs/organizations-connections.md §2), on
//! SQLite and on DynamoDB Local: created per protocol (bad settings refused with the field, the
//! 11th refused), listed, read, changed (names, settings, secret, the status rule: a new setting
//! or secret takes `tested` back to `draft` and keeps `on` on without `testedAt`), turned on only
//! once tested (the test's outcome recorded through `ciam_core` directly: the test sign-in is
//! another route's), off, deleted; the secret in no answer; a verified domain routed to a
//! connection that is on (and every refusal), the routing on the domain's owner item and its
//! claim, removed by off, by deletion and with the domain; every route walked with an owner, an
//! admin, a member, another organization's owner, a console viewer and an operator with and
//! without a reason; every change in the organization's audit slice.

use crate::helpers::{TestApp, TestResponse};
use axum::http::Method;
use ciam_core::console::Role as ConsoleRole;
use ciam_core::domains::claims::{self, Method as Proof};
use ciam_core::domains::DomainName;
use ciam_core::org::connections::{self, ConnId};
use ciam_core::org::OrgId;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

/// The secrets the tests send: none may appear in any answer.
const SECRETS: &[&str] = &[
    "oidc-s3cret",
    "wecom-s3cret",
    "dingtalk-s3cret",
    "feishu-s3cret",
    "rotated-s3cret",
];

fn body(protocol: &str) -> Value {
    let (settings, secret) = match protocol {
        "oidc" => (
            json!({ "issuer": "https://login.acme.example/tenant", "clientId": "ciam-portal" }),
            SECRETS[0],
        ),
        "wecom" => (
            json!({ "corpId": "ww0123", "agentId": "1000002" }),
            SECRETS[1],
        ),
        "dingtalk" => (
            json!({ "clientId": "dingabc", "corpId": "ding-corp" }),
            SECRETS[2],
        ),
        _ => (
            json!({ "appId": "cli_a1", "tenantKey": "t-acme", "region": "lark" }),
            SECRETS[3],
        ),
    };
    json!({ "protocol": protocol, "nameEn": format!("Acme {protocol}"), "settings": settings, "secret": secret })
}

#[track_caller]
fn no_secret(res: &TestResponse) {
    for s in SECRETS {
        assert!(!res.text.contains(s), "a secret in an answer: {}", res.text);
    }
    assert!(!res.text.contains("\"secret\":"), "{}", res.text);
}

struct Setup {
    org: String,
    other_org: String,
    owner: String,
    admin: String,
    member: String,
    other: String,
    viewer: String,
    operator: String,
}

impl TestApp {
    async fn conn_call(&self, m: Method, p: &str, token: &str, b: Option<&Value>) -> TestResponse {
        let res = self.admin_call(m, p, Some(token), b).await;
        no_secret(&res);
        res
    }

    async fn conn_setup(&self) -> Setup {
        let (_, operator) = self.staffer("op", Some(ConsoleRole::Operator)).await;
        let (_, viewer) = self.staffer("viewer", Some(ConsoleRole::Viewer)).await;
        let (owner_id, owner) = self.staffer("owner", None).await;
        let (other_id, other) = self.staffer("other", None).await;
        let org = self.org_owned_by(&operator, &owner_id, "Acme").await;
        let other_org = self.org_owned_by(&operator, &other_id, "Other").await;
        let mut joined = Vec::new();
        for (name, role) in [("adm", "admin"), ("mem", "member")] {
            let mail = format!("{name}@example.com");
            self.invite(&owner, &org, &mail, Some(role)).await.ok(201);
            let t = self.invitation_for(&mail);
            let (_, tok) = self.staffer(name, None).await;
            self.accept(&tok, &t).await.ok(200);
            joined.push(tok);
        }
        let [admin, member] = <[_; 2]>::try_from(joined).expect("two");
        Setup {
            org,
            other_org,
            owner,
            admin,
            member,
            other,
            viewer,
            operator,
        }
    }

    /// Makes `domain` `org`'s verified domain (the proof is org_domain_routes.rs's).
    async fn verified(&self, org: &str, domain: &str) {
        let store = self.ciam.store.as_ref();
        let org = OrgId::parse(org).expect("org");
        let d = DomainName::parse(domain).expect("domain");
        let entropy = self.ciam.entropy.as_ref();
        let claim = claims::add(store, entropy, self.now(), &org, &d, Proof::Dns, "test")
            .await
            .expect("claim");
        claims::mark_verified(store, self.now(), &org, &claim, Vec::new())
            .await
            .expect("verified");
    }

    /// A passed (or failed) test sign-in of the connection, as the test route records it.
    async fn tested(&self, org: &str, conn: &str, passed: bool) {
        let store = self.ciam.store.as_ref();
        let org = OrgId::parse(org).expect("org");
        let c = connections::get(store, &org, &ConnId::parse(conn).expect("id"))
            .await
            .expect("get")
            .expect("there");
        connections::record_test(&self.ciam, &c, passed)
            .await
            .expect("recorded");
    }

    /// The routing on the domain's owner item: (connId, required).
    async fn owner_routing(&self, domain: &str) -> Option<(String, bool)> {
        let d = DomainName::parse(domain).expect("domain");
        claims::owner_of(self.ciam.store.as_ref(), &d)
            .await
            .expect("owner")
            .and_then(|o| o.sign_in)
            .map(|s| (s.conn.as_str().to_owned(), s.required))
    }

    /// The domain as the organization's list shows it.
    async fn listed_domain(&self, token: &str, org: &str, domain: &str) -> Value {
        let p = format!("/org/{org}/domains");
        self.conn_call(Method::GET, &p, token, None).await.ok(200)["domains"]
            .as_array()
            .expect("domains")
            .iter()
            .find(|d| d["domain"] == domain)
            .cloned()
            .unwrap_or_else(|| panic!("{domain} not listed"))
    }

    /// The organization's slice entries of connections and routings (action, target), sorted.
    async fn conn_slice(&self, token: &str, org: &str) -> Vec<(String, String)> {
        let p = format!("/org/{org}/audit");
        let mut v: Vec<_> = self.conn_call(Method::GET, &p, token, None).await.ok(200)["entries"]
            .as_array()
            .expect("entries")
            .iter()
            .filter(|e| {
                e["action"]
                    .as_str()
                    .is_some_and(|a| a.starts_with("connection.") || a == "domain.signIn")
            })
            .map(|e| {
                (
                    e["action"].as_str().unwrap_or_default().to_owned(),
                    e["target"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect();
        v.sort();
        v
    }
}

fn id_of(v: &Value) -> String {
    v["connId"].as_str().expect("connId").to_owned()
}

async fn lifecycle(app: &TestApp, s: &Setup) {
    let org = &s.org;
    let at = |p: &str| format!("/org/{org}/connections{p}");
    // One of each protocol, by the owner: a draft with a secret, never shown.
    let mut ids = Vec::new();
    for protocol in ["oidc", "wecom", "dingtalk", "feishu"] {
        let made = app
            .conn_call(Method::POST, &at(""), &s.owner, Some(&body(protocol)))
            .await
            .ok(201);
        assert_eq!(made["protocol"], protocol);
        assert_eq!(made["status"], "draft");
        assert_eq!(made["jit"], "off");
        assert_eq!(made["hasSecret"], true);
        assert_eq!(made["testedAt"], Value::Null);
        assert_eq!(made["createdAt"], app.now());
        assert_eq!(
            made["redirectUri"],
            format!("{}/ciam/v1/auth/org/callback", app.ciam.config.public_url)
        );
        ids.push(id_of(&made));
    }
    let oidc = ids[0].clone();
    // Bad settings: refused with the field named.
    let bad = |protocol: &str, settings: Value| {
        let mut b = body(protocol);
        b["settings"] = settings;
        b
    };
    for (b, field) in [
        (
            bad(
                "oidc",
                json!({ "issuer": "http://idp.example", "clientId": "x" }),
            ),
            "issuer",
        ),
        (
            bad("oidc", json!({ "issuer": "https://idp.example" })),
            "clientId",
        ),
        (
            bad(
                "wecom",
                json!({ "corpId": "ww", "agentId": "1", "extra": "x" }),
            ),
            "extra",
        ),
        (
            bad(
                "feishu",
                json!({ "appId": "a", "tenantKey": "t", "region": "mars" }),
            ),
            "region",
        ),
        (
            json!({ "protocol": "saml", "settings": {}, "secret": "x" }),
            "protocol",
        ),
        (
            json!({ "protocol": "oidc", "nameEn": "A", "secret": "has space",
                "settings": { "issuer": "https://idp.example", "clientId": "x" } }),
            "secret",
        ),
    ] {
        let e = app
            .conn_call(Method::POST, &at(""), &s.admin, Some(&b))
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(e["field"], field, "{b}: {e}");
    }
    // Up to 10; the 11th refused.
    for _ in 4..10 {
        let made = app
            .conn_call(Method::POST, &at(""), &s.admin, Some(&body("oidc")))
            .await
            .ok(201);
        ids.push(id_of(&made));
    }
    let e = app
        .conn_call(Method::POST, &at(""), &s.admin, Some(&body("oidc")))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "connections");
    let listed = app
        .conn_call(Method::GET, &at(""), &s.admin, None)
        .await
        .ok(200);
    assert_eq!(listed["connections"].as_array().map(Vec::len), Some(10));
    let one = app
        .conn_call(Method::GET, &at(&format!("/{oidc}")), &s.admin, None)
        .await
        .ok(200);
    assert_eq!(
        one["settings"]["issuer"],
        "https://login.acme.example/tenant"
    );
    assert_eq!(one["nameEn"], "Acme oidc");
    // Unknown ids, malformed ones, another organization's: not found.
    let theirs = app
        .conn_call(
            Method::POST,
            &format!("/org/{}/connections", s.other_org),
            &s.other,
            Some(&body("oidc")),
        )
        .await
        .ok(201);
    let theirs = id_of(&theirs);
    for id in ["conn_0000000000000000", "nope", theirs.as_str()] {
        app.conn_call(Method::GET, &at(&format!("/{id}")), &s.owner, None)
            .await
            .error(404, "CONNECTION_NOT_FOUND");
    }
    // Deleting frees a place.
    for id in &ids[4..] {
        app.conn_call(Method::DELETE, &at(&format!("/{id}")), &s.admin, None)
            .await
            .ok(200);
    }
    let listed = app
        .conn_call(Method::GET, &at(""), &s.admin, None)
        .await
        .ok(200);
    assert_eq!(listed["connections"].as_array().map(Vec::len), Some(4));

    // The status rule.
    let one_path = at(&format!("/{oidc}"));
    let patch = |b: Value| {
        let (p, t) = (one_path.clone(), s.owner.clone());
        async move { app.conn_call(Method::PATCH, &p, &t, Some(&b)).await }
    };
    let renamed = patch(json!({ "nameZh": "极致", "nameEn": "Acme SSO" }))
        .await
        .ok(200);
    assert_eq!(
        (renamed["nameZh"].clone(), renamed["status"].clone()),
        (json!("极致"), json!("draft"))
    );
    let e = patch(json!({ "on": true }))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "on");
    app.tested(org, &oidc, true).await;
    let settings = json!({ "issuer": "https://login.acme.example/tenant", "clientId": "ciam-2" });
    let changed = patch(json!({ "settings": settings })).await.ok(200);
    assert_eq!(
        (changed["status"].clone(), changed["testedAt"].clone()),
        (json!("draft"), Value::Null),
        "new settings are not what the test proved"
    );
    assert_eq!(changed["settings"]["clientId"], "ciam-2");
    app.tested(org, &oidc, true).await;
    let rotated = patch(json!({ "secret": "rotated-s3cret" })).await.ok(200);
    assert_eq!(rotated["status"], "draft", "a new secret neither");
    assert_eq!(rotated["hasSecret"], true);
    app.tested(org, &oidc, true).await;
    // Names and jit leave the test standing.
    let join = patch(json!({ "jit": "join" })).await.ok(200);
    assert_eq!(
        (join["jit"].clone(), join["status"].clone()),
        (json!("join"), json!("tested"))
    );
    assert_eq!(join["testedAt"], app.now());
    let on = patch(json!({ "on": true })).await.ok(200);
    assert_eq!(on["status"], "on");
    // On: a new secret keeps it on (no lock-out mid-rotation) but not its test.
    let still = patch(json!({ "secret": "oidc-s3cret" })).await.ok(200);
    assert_eq!(
        (still["status"].clone(), still["testedAt"].clone()),
        (json!("on"), Value::Null)
    );
    let stored = connections::get(
        app.ciam.store.as_ref(),
        &OrgId::parse(org).expect("org"),
        &ConnId::parse(&oidc).expect("id"),
    )
    .await
    .expect("get")
    .expect("there");
    assert_eq!(stored.open_secret(&app.ciam).expect("opens"), "oidc-s3cret");
    // Bad values in a change are refused like at creation.
    let e = patch(json!({ "settings": { "issuer": "ftp://x" , "clientId": "x" } }))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "issuer");
    patch(json!({ "jit": "always" }))
        .await
        .error(400, "INVALID_PARAMETER");
    // Off, then on again: it needs a new test (the secret changed since the last one).
    assert_eq!(
        patch(json!({ "on": false })).await.ok(200)["status"],
        "draft"
    );
    patch(json!({ "on": true }))
        .await
        .error(400, "INVALID_PARAMETER");
    app.tested(org, &oidc, true).await;
    assert_eq!(patch(json!({ "on": true })).await.ok(200)["status"], "on");
}

async fn routing(app: &TestApp, s: &Setup) {
    let org = &s.org;
    let conns = format!("/org/{org}/connections");
    let listed = app
        .conn_call(Method::GET, &conns, &s.owner, None)
        .await
        .ok(200);
    let all = listed["connections"]
        .as_array()
        .expect("connections")
        .clone();
    let on = id_of(all.iter().find(|c| c["status"] == "on").expect("one on"));
    let draft = id_of(
        all.iter()
            .find(|c| c["status"] == "draft")
            .expect("a draft"),
    );
    app.verified(org, "acme.example").await;
    app.verified(org, "acme-eu.example").await;
    app.verified(&s.other_org, "other.example").await;
    app.conn_call(
        Method::POST,
        &format!("/org/{org}/domains"),
        &s.owner,
        Some(&json!({ "domain": "pending.example", "method": "dns" })),
    )
    .await
    .ok(201);
    let theirs = app
        .conn_call(
            Method::GET,
            &format!("/org/{}/connections", s.other_org),
            &s.other,
            None,
        )
        .await
        .ok(200);
    let theirs = id_of(&theirs["connections"][0]);
    let route = |domain: &str, conn: Value, required: bool| {
        let p = format!("/org/{org}/domains/{domain}/sign-in");
        let b = json!({ "connId": conn, "required": required });
        let t = s.admin.clone();
        async move { app.conn_call(Method::PUT, &p, &t, Some(&b)).await }
    };
    route("pending.example", json!(on), false)
        .await
        .error(409, "DOMAIN_NOT_VERIFIED");
    route("other.example", json!(on), false)
        .await
        .error(404, "DOMAIN_NOT_FOUND");
    route("nowhere.example", json!(on), false)
        .await
        .error(404, "DOMAIN_NOT_FOUND");
    route("acme.example", json!(theirs), false)
        .await
        .error(404, "CONNECTION_NOT_FOUND");
    route("acme.example", json!(draft), false)
        .await
        .error(409, "CONNECTION_NOT_ON");
    assert_eq!(app.owner_routing("acme.example").await, None);
    // Routed, required: on the owner item (what the sign-in reads) and the claim (the list).
    let routed = route("acme.example", json!(on), true).await.ok(200);
    assert_eq!(routed["signIn"], json!({ "connId": on, "required": true }));
    assert_eq!(
        app.owner_routing("acme.example").await,
        Some((on.clone(), true))
    );
    assert_eq!(
        app.listed_domain(&s.owner, org, "acme.example").await["signIn"],
        json!({ "connId": on, "required": true })
    );
    // Cleared.
    let cleared = route("acme.example", Value::Null, true).await.ok(200);
    assert_eq!(cleared["signIn"], Value::Null);
    assert_eq!(app.owner_routing("acme.example").await, None);
    assert_eq!(
        app.listed_domain(&s.owner, org, "acme.example").await["signIn"],
        Value::Null
    );
    // Turning the connection off removes the routing of every domain routed to it.
    route("acme.example", json!(on), false).await.ok(200);
    route("acme-eu.example", json!(on), true).await.ok(200);
    assert_eq!(
        app.owner_routing("acme.example").await,
        Some((on.clone(), false))
    );
    let one = format!("{conns}/{on}");
    let off = app
        .conn_call(Method::PATCH, &one, &s.owner, Some(&json!({ "on": false })))
        .await
        .ok(200);
    assert_eq!(off["status"], "tested");
    for d in ["acme.example", "acme-eu.example"] {
        assert_eq!(app.owner_routing(d).await, None, "{d}");
        assert_eq!(
            app.listed_domain(&s.owner, org, d).await["signIn"],
            Value::Null
        );
    }
    // Deleting it does too.
    app.conn_call(Method::PATCH, &one, &s.owner, Some(&json!({ "on": true })))
        .await
        .ok(200);
    route("acme.example", json!(on), true).await.ok(200);
    app.conn_call(Method::DELETE, &one, &s.owner, None)
        .await
        .ok(200);
    assert_eq!(app.owner_routing("acme.example").await, None);
    assert_eq!(
        app.listed_domain(&s.owner, org, "acme.example").await["signIn"],
        Value::Null
    );
    app.conn_call(Method::GET, &one, &s.owner, None)
        .await
        .error(404, "CONNECTION_NOT_FOUND");
    // A failed test turns it off, and so unroutes it too.
    app.tested(org, &draft, true).await;
    let path = format!("{conns}/{draft}");
    app.conn_call(Method::PATCH, &path, &s.owner, Some(&json!({ "on": true })))
        .await
        .ok(200);
    route("acme-eu.example", json!(draft), false).await.ok(200);
    app.tested(org, &draft, false).await;
    assert_eq!(app.owner_routing("acme-eu.example").await, None);
    // Removing the domain takes its routing with it; verified again, it has none.
    app.tested(org, &draft, true).await;
    app.conn_call(Method::PATCH, &path, &s.owner, Some(&json!({ "on": true })))
        .await
        .ok(200);
    route("acme-eu.example", json!(draft), true).await.ok(200);
    app.conn_call(
        Method::DELETE,
        &format!("/org/{org}/domains/acme-eu.example"),
        &s.owner,
        None,
    )
    .await
    .ok(200);
    assert_eq!(app.owner_routing("acme-eu.example").await, None);
    app.verified(org, "acme-eu.example").await;
    assert_eq!(app.owner_routing("acme-eu.example").await, None);
    assert_eq!(
        app.listed_domain(&s.owner, org, "acme-eu.example").await["signIn"],
        Value::Null
    );
}

/// Every connection route with every kind of caller: owners and admins act, a member is refused,
/// another organization's owner learns nothing; in the console a viewer reads, an operator acts
/// with a reason only.
async fn walk(app: &TestApp, s: &Setup) {
    let org = &s.org;
    let conns = format!("/org/{org}/connections");
    let victim = |token: String| {
        let p = conns.clone();
        async move {
            id_of(
                &app.conn_call(Method::POST, &p, &token, Some(&body("wecom")))
                    .await
                    .ok(201),
            )
        }
    };
    let keep = victim(s.owner.clone()).await;
    let sign_in = format!("/org/{org}/domains/acme.example/sign-in");
    let none = json!({ "connId": null, "required": false });
    for (who, token) in [("owner", &s.owner), ("admin", &s.admin)] {
        let mine = victim(token.clone()).await;
        let one = format!("{conns}/{mine}");
        let calls = [
            (Method::GET, conns.clone(), None, 200),
            (Method::POST, conns.clone(), Some(body("dingtalk")), 201),
            (Method::GET, one.clone(), None, 200),
            (
                Method::PATCH,
                one.clone(),
                Some(json!({ "jit": "join" })),
                200,
            ),
            (Method::PUT, sign_in.clone(), Some(none.clone()), 200),
            (Method::DELETE, one.clone(), None, 200),
        ];
        for (m, p, b, status) in calls {
            let res = app.conn_call(m.clone(), &p, token, b.as_ref()).await;
            assert_eq!(res.status.as_u16(), status, "{who} {m} {p}: {}", res.text);
            if m == Method::POST {
                let made = id_of(&res.json());
                app.conn_call(Method::DELETE, &format!("{conns}/{made}"), token, None)
                    .await
                    .ok(200);
            }
        }
    }
    let one = format!("{conns}/{keep}");
    let calls = [
        (Method::GET, conns.clone(), None),
        (Method::POST, conns.clone(), Some(body("dingtalk"))),
        (Method::GET, one.clone(), None),
        (Method::PATCH, one.clone(), Some(json!({ "jit": "join" }))),
        (Method::PUT, sign_in.clone(), Some(none.clone())),
        (Method::DELETE, one.clone(), None),
    ];
    for (m, p, b) in &calls {
        app.conn_call(m.clone(), p, &s.member, b.as_ref())
            .await
            .error(403, "ORG_ROLE_FORBIDDEN");
        app.conn_call(m.clone(), p, &s.other, b.as_ref())
            .await
            .error(404, "ORG_NOT_FOUND");
        app.conn_call(m.clone(), p, &s.operator, b.as_ref())
            .await
            .error(404, "ORG_NOT_FOUND");
    }

    // The console's twins.
    let console = format!("/admin/organizations/{org}/connections");
    let c_one = format!("{console}/{keep}");
    let c_sign_in = format!("/admin/organizations/{org}/domains/acme.example/sign-in");
    let why = "customer's ticket 7";
    let with = |mut b: Value| {
        b["reason"] = json!(why);
        b
    };
    let reads = [console.clone(), c_one.clone()];
    for p in &reads {
        for t in [&s.viewer, &s.operator] {
            app.conn_call(Method::GET, p, t, None).await.ok(200);
        }
        app.conn_call(Method::GET, p, &s.owner, None)
            .await
            .error(403, "PERMISSION_DENIED");
    }
    let changes = [
        (Method::POST, console.clone(), body("feishu")),
        (
            Method::PATCH,
            c_one.clone(),
            json!({ "nameEn": "By support" }),
        ),
        (Method::PUT, c_sign_in.clone(), none.clone()),
        (Method::DELETE, c_one.clone(), json!({})),
    ];
    for (m, p, b) in &changes {
        app.conn_call(m.clone(), p, &s.viewer, Some(&with(b.clone())))
            .await
            .error(403, "PERMISSION_DENIED");
        let mut no_reason = b.clone();
        no_reason["reason"] = json!("");
        let e = app
            .conn_call(m.clone(), p, &s.operator, Some(&no_reason))
            .await
            .error(400, "INVALID_PARAMETER");
        assert_eq!(e["field"], "reason", "{m} {p}");
    }
    let made = app
        .conn_call(
            Method::POST,
            &console,
            &s.operator,
            Some(&with(body("feishu"))),
        )
        .await
        .ok(201);
    assert_eq!(made["protocol"], "feishu");
    let renamed = app
        .conn_call(
            Method::PATCH,
            &c_one,
            &s.operator,
            Some(&with(json!({ "nameEn": "By support" }))),
        )
        .await
        .ok(200);
    assert_eq!(renamed["nameEn"], "By support");
    app.conn_call(
        Method::PUT,
        &c_sign_in,
        &s.operator,
        Some(&with(none.clone())),
    )
    .await
    .ok(200);
    app.conn_call(Method::DELETE, &c_one, &s.operator, Some(&with(json!({}))))
        .await
        .ok(200);
    let made = id_of(&made);
    app.conn_call(
        Method::DELETE,
        &format!("{console}/{made}"),
        &s.operator,
        Some(&with(json!({}))),
    )
    .await
    .ok(200);
    // The console's log: one entry per change.
    let day = app.today();
    let log = |action: &str| {
        let p = format!("/admin/audit?from={day}&to={day}&action={action}");
        let t = s.viewer.clone();
        async move {
            app.conn_call(Method::GET, &p, &t, None).await.ok(200)["entries"]
                .as_array()
                .map_or(0, Vec::len)
        }
    };
    assert_eq!(log("org.connection").await, 4);
    // The organization's slice, with the operator's reason.
    let p = format!("/org/{org}/audit");
    let entries = app.conn_call(Method::GET, &p, &s.owner, None).await.ok(200)["entries"].clone();
    let by_support = entries
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["reason"] == why)
        .count();
    assert_eq!(by_support, 5, "{entries}");
}

async fn connection_routes(app: TestApp) {
    let s = app.conn_setup().await;
    app.verified(&s.org, "acme.example").await;
    walk(&app, &s).await;
    // The walk leaves nothing behind.
    let p = format!("/org/{}/connections", s.org);
    let left = app.conn_call(Method::GET, &p, &s.owner, None).await.ok(200);
    assert_eq!(left["connections"], json!([]));
    let o = OrgId::parse(&s.org).expect("org");
    let d = DomainName::parse("acme.example").expect("domain");
    claims::remove(app.ciam.store.as_ref(), &o, &d)
        .await
        .expect("removed");
    lifecycle(&app, &s).await;
    routing(&app, &s).await;
    let slice = app.conn_slice(&s.owner, &s.org).await;
    for action in [
        "connection.create",
        "connection.update",
        "connection.status",
        "connection.delete",
        "domain.signIn",
    ] {
        assert!(
            slice.iter().any(|(a, _)| a == action),
            "{action} in {slice:?}"
        );
    }
    // Each entry names what it acted on: a connection or a domain.
    assert!(
        slice.iter().all(|(a, t)| if a == "domain.signIn" {
            t.ends_with(".example")
        } else {
            t.starts_with("conn_")
        }),
        "{slice:?}"
    );
}

#[tokio::test]
async fn connections_are_created_changed_tested_on_routed_and_deleted_over_http_by_whom_may() {
    connection_routes(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_connection_routes_behave_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    connection_routes(TestApp::on_dynamo(&local, "org_connection_routes").await).await;
}
