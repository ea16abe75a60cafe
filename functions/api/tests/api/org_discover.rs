//! The company's own sign-in routed by verified domain (docs/organizations-connections.md
//! §0.4-5), over HTTP on SQLite and on DynamoDB Local: `POST /auth/org/discover` (unrouted,
//! unverified, routed, a connection not on, not a mail, another organization's connection), and
//! "must use company sign-in" enforced by the server: the password sign-in refused after the
//! right password only (a wrong one answers as ever), the mail-code sign-in and sign-up refused
//! before any code is sent, a phone and a routed but not required domain unaffected; the
//! counting case of a password sign-in at a routed domain (2 round trips, 3 write units).
//!
//! The routing itself (the owner item's `signInConn` and `signInRequired`) is written here by a
//! direct update of the owner item ([`route`]): its route, `PUT /org/{orgId}/domains/{domain}/
//! sign-in`, is built separately. The organizations, their verified domains and connections are
//! made through `ciam_core` as their routes do.

use crate::helpers::{json_request, TestApp, TestResponse, PASSWORD};
use axum::http::Method;
use ciam_core::domains::{claims, DomainName};
use ciam_core::org::connections::{ConnId, NewConnection};
use ciam_core::org::OrgId;
use ciam_core::testing::billing::total;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Store, Update};
use serde_json::json;
use std::collections::BTreeMap;
use std::sync::Arc;

const ANN: &str = "ann@acme.example";
const PHONE: &str = "13800138000";

impl TestApp {
    async fn discover(&self, mail: &str) -> TestResponse {
        let body = json!({ "mail": mail });
        self.call(json_request(
            Method::POST,
            "/auth/org/discover",
            None,
            &body,
        ))
        .await
    }
}

fn domain(d: &str) -> DomainName {
    DomainName::parse(d).expect("domain")
}

/// An OIDC connection of `org`, turned `on` (tested first) unless `on` is false (a draft).
async fn connection(app: &TestApp, org: &OrgId, name_en: &str, on: bool) -> ConnId {
    let settings = BTreeMap::from([
        ("issuer".to_owned(), "https://idp.acme.example".to_owned()),
        ("clientId".to_owned(), "ciam".to_owned()),
    ]);
    let new = NewConnection {
        protocol: "oidc".into(),
        name_zh: Some(format!("{name_en}统一登录")),
        name_en: Some(name_en.into()),
        settings,
        secret: "s3cret-of-the-idp".into(),
        jit: None,
    };
    app.connection_made(org, new, on).await
}

/// Routes verified domain `d` to `conn` (`required` or not): the owner item's `signInConn` and
/// `signInRequired`, written directly (the routing's own route is built separately).
async fn route(app: &TestApp, d: &str, conn: &ConnId, required: bool) {
    app.store
        .update(
            &claims::owner_key(&domain(d)),
            vec![
                Update::Set(claims::SIGN_IN_CONN.into(), conn.as_str().into()),
                Update::Set(claims::SIGN_IN_REQUIRED.into(), i64::from(required).into()),
            ],
            None,
        )
        .await
        .expect("routed");
}

/// The `fails` count of `account`'s identity item.
async fn fails(app: &TestApp, account: &str) -> i64 {
    let id = ciam_core::validate::Identity::parse(account).expect("account");
    app.store
        .get(&ciam_core::user::unique_key(id.unique_pk()))
        .await
        .expect("read")
        .and_then(|i| i.n("fails"))
        .unwrap_or(0)
}

fn codes_to(app: &TestApp, account: &str) -> usize {
    let id = ciam_core::validate::Identity::parse(account).expect("account");
    app.outbox.messages().iter().filter(|m| m.to == id).count()
}

async fn discover_and_required(app: TestApp) {
    // People who signed up before any routing.
    let ann = app.sign_up("annlee", ANN).await;
    app.sign_up("phoebe", PHONE).await;
    app.sign_up("carl", "carl@beta.example").await;
    let acme = app.active_org(&ann, "Acme").await;
    let beta = app.active_org(&ann, "Beta").await;
    app.claimed(&acme, "acme.example", "ann", true).await;
    app.claimed(&acme, "pending.example", "ann", false).await;
    app.claimed(&beta, "beta.example", "ann", true).await;
    let on = connection(&app, &acme, "Acme SSO", true).await;
    let draft = connection(&app, &acme, "Acme draft", false).await;

    // Nothing routed yet: `{}` for a verified domain, a pending one, a free-mail one, and
    // anything that is not a mail (no store call for those).
    for mail in [
        ANN,
        "x@pending.example",
        "x@gmail.com",
        "nobody.example",
        "",
        PHONE,
    ] {
        assert_eq!(app.discover(mail).await.ok(200), json!({}), "{mail:?}");
    }
    app.store.take_calls();
    app.discover("not a mail").await.ok(200);
    assert!(
        app.store.take_calls().is_empty(),
        "a malformed mail reads nothing"
    );

    // Routed, not required: the connection, for any address at the domain, known or not.
    route(&app, "acme.example", &on, false).await;
    let want = json!({
        "connection": {
            "id": on.as_str(),
            "name": { "zh-CN": "Acme SSO统一登录", "en-US": "Acme SSO" },
            "protocol": "oidc",
        },
        "required": false,
    });
    app.store.take_calls();
    assert_eq!(app.discover(ANN).await.ok(200), want);
    assert_eq!(app.discover(" Nobody@ACME.example ").await.ok(200), want);
    let calls: Vec<_> = app.store.take_calls().into_iter().map(|c| c.0).collect();
    assert_eq!(calls, ["get", "get", "get", "get"], "2 GetItems each");

    // Still `{}`: a domain not verified, even routed by its own owner item; a connection that
    // is not on; another organization's connection.
    route(&app, "beta.example", &on, false).await;
    assert_eq!(
        app.discover("carl@beta.example").await.ok(200),
        json!({}),
        "Beta's domain routed to Acme's connection: not found under Beta"
    );
    claims::remove(app.ciam.store.as_ref(), &beta, &domain("beta.example"))
        .await
        .expect("removed");
    assert_eq!(
        app.discover("carl@beta.example").await.ok(200),
        json!({}),
        "no longer verified"
    );
    route(&app, "acme.example", &draft, false).await;
    assert_eq!(app.discover(ANN).await.ok(200), json!({}), "a draft");

    // Routed, not required: every way in works as before.
    route(&app, "acme.example", &on, false).await;
    app.sign_in(ANN, PASSWORD).await;
    let code = app.fresh_code(ANN, "login").await;
    app.login_code(ANN, &code).await.ok(200);

    // A code asked for before the domain required the company's sign-in.
    let early = app.fresh_code(ANN, "login").await;

    // Required.
    route(&app, "acme.example", &on, true).await;
    assert_eq!(app.discover(ANN).await.ok(200)["required"], json!(true));

    // A wrong password answers as ever, and counts.
    app.login_password(ANN, "Wr0ng!password")
        .await
        .error(401, "PASSWORD_ERROR");
    assert_eq!(fails(&app, ANN).await, 1);
    // The right one: told, the connection named, no session, the attempt given back.
    let sessions = app.sessions_of(&ann).await.len();
    let body = app
        .login_password(ANN, PASSWORD)
        .await
        .error(403, "ORG_SIGN_IN_REQUIRED");
    assert_eq!(body["connection"], json!(on.as_str()), "{body}");
    assert_eq!(
        fails(&app, ANN).await,
        1,
        "the right password's attempt given back"
    );
    assert_eq!(app.sessions_of(&ann).await.len(), sessions, "no session");
    // In English too.
    let en = app
        .call(
            crate::helpers::request(Method::POST, "/auth/login/password")
                .header("content-type", "application/json")
                .header("accept-language", "en-US")
                .body(axum::body::Body::from(
                    json!({ "account": ANN, "password": PASSWORD }).to_string(),
                ))
                .expect("request"),
        )
        .await
        .error(403, "ORG_SIGN_IN_REQUIRED");
    assert_eq!(
        en["message"],
        json!("Your company asks you to sign in with its own account")
    );

    // Mail codes: refused before any code is sent, for sign-in and sign-up alike.
    let sent = codes_to(&app, ANN);
    app.send_code(ANN, "login")
        .await
        .error(403, "ORG_SIGN_IN_REQUIRED");
    assert_eq!(codes_to(&app, ANN), sent, "no sign-in code sent");
    app.send_code("newbie@acme.example", "register")
        .await
        .error(403, "ORG_SIGN_IN_REQUIRED");
    assert_eq!(
        codes_to(&app, "newbie@acme.example"),
        0,
        "no sign-up code sent"
    );
    // The code sent before: right, and refused all the same.
    let body = app
        .login_code(ANN, &early)
        .await
        .error(403, "ORG_SIGN_IN_REQUIRED");
    assert_eq!(body["connection"], json!(on.as_str()));
    assert_eq!(app.sessions_of(&ann).await.len(), sessions, "no session");

    // A phone is not affected, nor is a password reset's code.
    app.sign_in(PHONE, PASSWORD).await;
    let code = app.fresh_code(PHONE, "login").await;
    app.login_code(PHONE, &code).await.ok(200);
    app.send_code(ANN, "resetPassword").await.ok(200);

    // Not required any more: the password works again.
    route(&app, "acme.example", &on, false).await;
    app.sign_in(ANN, PASSWORD).await;
}

#[tokio::test]
async fn discover_and_the_required_company_sign_in() {
    discover_and_required(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_discover_and_the_required_company_sign_in() {
    let local = Arc::new(DynamoLocal::start().await);
    discover_and_required(TestApp::on_dynamo(&local, "org_discover").await).await;
}

/// A password sign-in at a routed domain: the owner item is read beside the attempt, so it
/// stays 2 round trips and 3 write units.
async fn counted(app: TestApp) {
    let ann = app.sign_up("annlee", ANN).await;
    let acme = app.active_org(&ann, "Acme").await;
    app.claimed(&acme, "acme.example", "ann", true).await;
    let on = connection(&app, &acme, "Acme SSO", true).await;
    route(&app, "acme.example", &on, false).await;
    app.sign_in(ANN, PASSWORD).await;
    app.clock.advance(120);
    app.store.bill_writes();
    app.store.take_bill();
    app.store.take_calls();

    app.sign_in(ANN, PASSWORD).await;
    let mut calls: Vec<_> = app.store.take_calls().into_iter().map(|c| c.0).collect();
    calls[0..2].sort_unstable();
    calls[2..4].sort_unstable();
    assert_eq!(
        calls,
        ["get", "update_once", "put", "update", "update"],
        "the attempt beside the domain's owner item, then the reset beside the session, then \
         the week's counter"
    );
    let own: Vec<_> = app
        .store
        .take_bill()
        .into_iter()
        .filter(|b| !b.key.pk.starts_with("STATS"))
        .collect();
    assert_eq!(
        total(&own),
        3,
        "the attempt, the reset, the session: {own:?}"
    );
}

#[tokio::test]
async fn a_password_sign_in_at_a_routed_domain_is_two_round_trips_and_three_write_units() {
    counted(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_a_password_sign_in_at_a_routed_domain_is_two_round_trips_and_three_write_units(
) {
    let local = Arc::new(DynamoLocal::start().await);
    counted(TestApp::on_dynamo(&local, "org_discover_counted").await).await;
}
