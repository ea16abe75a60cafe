//! An organization's sign-in connections over HTTP (docs/organizations-connections.md §2), on
//! SQLite and on DynamoDB Local: created per protocol (bad settings refused with the field, the
//! 11th refused), listed, read, changed (names, settings, secret, the status rule: a new setting
//! or secret takes `tested` back to `draft` and keeps `on` on without `testedAt`), turned on only
//! once tested (the test's outcome recorded through `ciam_core` directly: the test sign-in is
//! another route's), off, deleted; the secret in no answer; a verified domain routed to a
//! connection that is on (and every refusal), the routing on the domain's owner item and its
//! claim, removed by off, by deletion and with the domain; every change in the organization's
//! audit slice. The walk of every route with every kind of caller: org_connection_walk.rs.

use crate::helpers::org_connections::{body, id_of, Setup};
use crate::helpers::TestApp;
use axum::http::Method;
use ciam_core::org::connections::{self, ConnId};
use ciam_core::org::OrgId;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

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

async fn connection_routes(app: TestApp) {
    let s = app.conn_setup().await;
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
