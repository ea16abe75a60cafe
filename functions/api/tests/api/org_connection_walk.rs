//! Every connection route of "My company" and of the console walked with every kind of caller,
//! on SQLite and on DynamoDB Local: an owner and an admin act, a member is refused
//! (ORG_ROLE_FORBIDDEN), another organization's owner and an operator outside the console learn
//! nothing (ORG_NOT_FOUND); in the console a viewer reads and is refused changes, an operator
//! changes with a reason only; the console's log and the organization's slice hold each change.
//! The behaviour itself: org_connection_routes.rs.

use crate::helpers::org_connections::{body, id_of, Setup};
use crate::helpers::TestApp;
use axum::http::Method;
use ciam_core::domains::claims;
use ciam_core::domains::DomainName;
use ciam_core::org::OrgId;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

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

async fn connection_walk(app: TestApp) {
    let s = app.conn_setup().await;
    app.verified(&s.org, "acme.example").await;
    walk(&app, &s).await;
    // The walk leaves nothing behind.
    let p = format!("/org/{}/connections", s.org);
    let left = app.conn_call(Method::GET, &p, &s.owner, None).await.ok(200);
    assert_eq!(left["connections"], json!([]));
    let o = OrgId::parse(&s.org).expect("org");
    let d = DomainName::parse("acme.example").expect("domain");
    assert_eq!(
        claims::owner_of(app.ciam.store.as_ref(), &d)
            .await
            .expect("owner")
            .map(|x| (x.org, x.sign_in)),
        Some((o, None))
    );
}

#[tokio::test]
async fn every_connection_route_answers_each_kind_of_caller_as_its_rules_say() {
    connection_walk(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_every_connection_route_answers_each_kind_of_caller_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    connection_walk(TestApp::on_dynamo(&local, "org_connection_walk").await).await;
}
