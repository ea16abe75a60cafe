//! The organization in tokens (issue 35 item 5, docs/oidc.md "Organizations"): the
//! `organization` parameter and scope, the picker's need, an app that requires an organization,
//! a named organization that is not the person's, a suspended organization, a removed member
//! (no token, and userinfo refused), CAS-style tickets with the organization, and the app
//! setting over the console's API. On SQLite and DynamoDB Local.

use crate::helpers::{json_request, TestApp, TestResponse, PASSWORD};
use crate::oidc::{get, location, param, userinfo, verify_jwt, world_on, World, CB, VERIFIER};
use axum::http::Method;
use ciam_core::org::{self, members};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, TxOp, Update};
use serde_json::{json, Value};
use std::sync::Arc;

pub(crate) const TICKET_URL: &str = "https://tickets.example.com/cb";

/// An active organization named `name` owned by `owner`: its id.
pub(crate) async fn org_of(app: &TestApp, owner: &str, name: &str) -> String {
    app.active_org(owner, name).await.to_string()
}

pub(crate) async fn join(app: &TestApp, org: &str, user_id: &str, role: org::Role) {
    let org = org::OrgId::parse(org).expect("id");
    let ops = members::join_ops(&org, user_id, role, "test", app.now(), vec![]);
    app.ciam.store.transact(ops).await.expect("joined");
}

/// A CAS-style app ("Portal") that requires an organization, created by `admin` over the
/// console's API: the answer (`app`, `appSecret`).
pub(crate) async fn ticket_app(app: &TestApp, admin: &str) -> Value {
    app.create_app(
        admin,
        &json!({
            "name": { "zh-CN": "门户", "en-US": "Portal" },
            "serviceUrls": [CB, TICKET_URL],
            "scopes": ["nickname"],
            "organization": "required",
        }),
    )
    .await
    .ok(201)
}

/// Removes `user_id` from `org` (both items; the counter left alone).
async fn drop_member(app: &TestApp, org: &str, user_id: &str) {
    let org = org::OrgId::parse(org).expect("id");
    let tx = vec![
        TxOp::Delete {
            key: org::member_key(&org, user_id),
            cond: Some(Cond::Exists),
        },
        TxOp::Delete {
            key: org::side_key(&org, user_id),
            cond: None,
        },
    ];
    app.ciam.store.transact(tx).await.expect("removed");
}

async fn set_status(app: &TestApp, org: &str, status: &str) {
    let org = org::OrgId::parse(org).expect("id");
    app.ciam
        .store
        .update(
            &org::org_key(&org),
            vec![Update::Set("status".into(), status.into())],
            Some(Cond::Exists),
        )
        .await
        .expect("status");
}

impl World {
    pub(crate) async fn allow_with(&self, id: &str, body: &Value) -> TestResponse {
        self.app
            .call(json_request(
                Method::POST,
                &format!("/oidc/requests/{id}"),
                Some(&self.user),
                body,
            ))
            .await
    }

    /// Request (with `overrides`), Allow with `body`, redeem: the id_token's claims and the
    /// token answer.
    pub(crate) async fn claims(
        &self,
        overrides: &[(&str, Option<&str>)],
        body: &Value,
    ) -> (Value, Value) {
        let id = self.request_id(overrides).await;
        let to = self.allow_with(&id, body).await.ok(200)["redirect"]
            .as_str()
            .expect("redirect")
            .to_owned();
        let code = param(&to, "code").expect("code");
        let tokens = self.redeem(&code, VERIFIER, CB).await.ok(200);
        let jwks = get(&self.app, "/oidc/jwks", &[]).await.ok(200);
        let (_, claims) =
            verify_jwt(tokens["id_token"].as_str().expect("id_token"), &jwks).expect("verified");
        (claims, tokens)
    }

    /// A code for `overrides` and `body`, not redeemed yet.
    async fn code_with(&self, overrides: &[(&str, Option<&str>)], body: &Value) -> String {
        let id = self.request_id(overrides).await;
        let to = self.allow_with(&id, body).await.ok(200)["redirect"]
            .as_str()
            .expect("redirect")
            .to_owned();
        param(&to, "code").expect("code")
    }
}

pub(crate) const ASKS: &[(&str, Option<&str>)] = &[("scope", Some("openid nickname organization"))];

async fn tokens_carry_the_organization(app: TestApp) {
    let w = world_on(app).await;
    let app = &w.app;
    let bob = app.sign_up("bob", "bob@example.com").await;
    let acme = org_of(app, &w.user_id, "Acme").await;
    let beta = org_of(app, &bob, "Beta").await;
    let gamma = org_of(app, &bob, "Gamma").await;

    // Not asked: no organization anywhere.
    let id = w.request_id(&[]).await;
    assert!(w.view(&id).await.ok(200).get("organization").is_none());
    let (claims, tokens) = w.claims(&[], &json!({})).await;
    assert!(claims.get("org_id").is_none(), "{claims}");
    assert!(!tokens["scope"].as_str().unwrap().contains("organization"));

    // The scope, one organization: no picker, the id_token and userinfo agree.
    let id = w.request_id(ASKS).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(step["choices"].as_array().unwrap().len(), 1, "{step}");
    assert_eq!(step["choices"][0]["orgId"], acme.as_str());
    assert_eq!(step["choices"][0]["name"], "Acme");
    assert_eq!(step["choices"][0]["role"], "owner");
    assert_eq!(
        (&step["refused"], &step["required"]),
        (&json!(null), &json!(false))
    );
    let (claims, tokens) = w.claims(ASKS, &json!({})).await;
    assert_eq!(claims["org_id"], acme.as_str());
    assert_eq!(claims["org_roles"], json!(["owner"]));
    assert_eq!(tokens["scope"], "openid nickname organization");
    let info = userinfo(app, tokens["access_token"].as_str().unwrap())
        .await
        .ok(200);
    assert_eq!(
        (&info["org_id"], &info["org_roles"]),
        (&claims["org_id"], &claims["org_roles"])
    );

    // Two organizations: the person must pick (the request waits), and only one of theirs.
    join(app, &beta, &w.user_id, org::Role::Member).await;
    let id = w.request_id(ASKS).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(step["choices"].as_array().unwrap().len(), 2, "{step}");
    let e = w
        .allow_with(&id, &json!({}))
        .await
        .error(400, "INVALID_PARAMETER");
    assert_eq!(e["field"], "organization");
    w.allow_with(&id, &json!({ "organization": gamma }))
        .await
        .error(404, "ORG_NOT_FOUND");
    w.allow_with(&id, &json!({ "organization": beta }))
        .await
        .ok(200);
    let (claims, _) = w.claims(ASKS, &json!({ "organization": beta })).await;
    assert_eq!(
        (&claims["org_id"], &claims["org_roles"]),
        (&json!(beta), &json!(["member"]))
    );

    // The parameter names one (and asks for the claims without the scope): no picker.
    let named = [("organization", Some(acme.as_str()))];
    let id = w.request_id(&named).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(step["choices"].as_array().unwrap().len(), 1, "{step}");
    let (claims, _) = w.claims(&named, &json!({})).await;
    assert_eq!(claims["org_id"], acme.as_str());

    // A named organization that is not the person's is refused at Ciam, never ignored.
    let id = w
        .request_id(&[("organization", Some(gamma.as_str()))])
        .await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(step["refused"], "notMember", "{step}");
    assert_eq!(step["choices"], json!([]));
    w.allow_with(&id, &json!({ "organization": gamma }))
        .await
        .error(404, "ORG_NOT_FOUND");
    w.allow_with(&id, &json!({}))
        .await
        .error(404, "ORG_NOT_FOUND");
    // A malformed id goes back to the client as invalid_request.
    let to = location(&w.authorize(&[("organization", Some("acme"))]).await);
    assert_eq!(param(&to, "error").as_deref(), Some("invalid_request"));

    // A suspended organization is no choice, and named, is refused.
    set_status(app, &beta, "suspended").await;
    let id = w.request_id(ASKS).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(step["choices"].as_array().unwrap().len(), 1, "{step}");
    let id = w.request_id(&[("organization", Some(beta.as_str()))]).await;
    assert_eq!(
        w.view(&id).await.ok(200)["organization"]["refused"],
        "notMember"
    );
    set_status(app, &beta, "active").await;

    // Removed: a code issued before is refused at the token endpoint, and the access token of
    // an earlier redemption stops working; suspended: the same.
    let beta_pick = json!({ "organization": beta });
    let (_, tokens) = w.claims(ASKS, &beta_pick).await;
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    userinfo(app, &access).await.ok(200);
    let code = w.code_with(ASKS, &beta_pick).await;
    drop_member(app, &beta, &w.user_id).await;
    let res = w.redeem(&code, VERIFIER, CB).await;
    assert_eq!(res.status.as_u16(), 400, "{}", res.text);
    assert_eq!(res.json()["error"], "invalid_grant");
    let res = userinfo(app, &access).await;
    assert_eq!(res.status.as_u16(), 401, "{}", res.text);
    let (_, tokens) = w.claims(ASKS, &json!({})).await;
    let access = tokens["access_token"].as_str().unwrap().to_owned();
    assert_eq!(
        userinfo(app, &access).await.ok(200)["org_id"],
        acme.as_str()
    );
    set_status(app, &acme, "suspended").await;
    assert_eq!(userinfo(app, &access).await.status.as_u16(), 401);
    set_status(app, &acme, "active").await;
}

async fn apps_that_ask_or_require(app: TestApp) {
    let w = world_on(app).await;
    let app = &w.app;
    // world_on signed the admin up: a new session of theirs.
    let admin = app.admin_session("admin@example.com").await;
    let acme = org_of(app, &w.user_id, "Acme").await;
    // The setting over the console's API.
    let created = ticket_app(app, &admin).await;
    let app_id = created["app"]["appId"].as_str().unwrap().to_owned();
    let secret = created["appSecret"].as_str().unwrap().to_owned();
    assert_eq!(created["app"]["organization"], "required");
    assert_eq!(
        app.get_app(&admin, &app_id).await.ok(200)["app"]["organization"],
        "required"
    );
    let bad = json!({ "organization": "always", "reason": "test" });
    app.patch_app(&admin, &app_id, &bad)
        .await
        .error(400, "INVALID_PARAMETER");
    let portal = World {
        app_id: app_id.clone(),
        secret: secret.clone(),
        ..w.as_user(&w.user)
    };

    // Required: the claims come without the scope.
    let (claims, _) = portal.claims(&[], &json!({})).await;
    assert_eq!(
        (&claims["org_id"], &claims["org_roles"]),
        (&json!(acme), &json!(["owner"]))
    );
    // A person with no organization is refused at Ciam: the view says why, Allow is refused.
    app.sign_up("carl", "carl@example.com").await;
    let carl = app.sign_in("carl@example.com", PASSWORD).await;
    let carl_portal = portal.as_user(&carl);
    let id = carl_portal.request_id(&[]).await;
    let step = carl_portal.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(
        (&step["required"], &step["refused"]),
        (&json!(true), &json!("required"))
    );
    carl_portal
        .allow_with(&id, &json!({}))
        .await
        .error(404, "ORG_NOT_FOUND");
    // An app that only asks: no organization, no claims, nothing refused.
    let carl_factory = w.as_user(&carl);
    let id = carl_factory.request_id(ASKS).await;
    let step = carl_factory.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(
        (&step["choices"], &step["refused"], &step["required"]),
        (&json!([]), &json!(null), &json!(false))
    );
    let (claims, tokens) = carl_factory.claims(ASKS, &json!({})).await;
    assert!(claims.get("org_id").is_none(), "{claims}");
    assert_eq!(tokens["scope"], "openid nickname");

    // Tickets: the consent context has the step, the ticket carries the organization, and its
    // verification says it; a person refused gets no ticket.
    let ctx = app.get_consent(&w.user, &app_id, TICKET_URL).await.ok(200);
    assert_eq!(ctx["organization"]["choices"][0]["orgId"], acme.as_str());
    let t = app.issue_ticket(&w.user, &app_id, TICKET_URL).await.ok(200);
    let ticket = t["cTicket"].as_str().unwrap();
    let v = app
        .verify_ticket(&app_id, &secret, ticket, TICKET_URL)
        .await
        .ok(200);
    assert_eq!(
        (&v["orgId"], &v["orgRoles"]),
        (&json!(acme), &json!(["owner"]))
    );
    app.issue_ticket(&carl, &app_id, TICKET_URL)
        .await
        .error(404, "ORG_NOT_FOUND");
    // A member removed between the ticket and its verification: no claim of it.
    let t = app.issue_ticket(&w.user, &app_id, TICKET_URL).await.ok(200);
    drop_member(app, &acme, &w.user_id).await;
    app.verify_ticket(&app_id, &secret, t["cTicket"].as_str().unwrap(), TICKET_URL)
        .await
        .error(404, "TICKET_NOT_FOUND");
    // An app that does not ask: no organization in its tickets.
    let ctx = app.get_consent(&w.user, &w.app_id, CB).await.ok(200);
    assert!(ctx.get("organization").is_none(), "{ctx}");
}

#[tokio::test]
async fn id_tokens_and_userinfo_carry_the_organization_asked_for() {
    tokens_carry_the_organization(TestApp::spawn().await).await;
}

#[tokio::test]
async fn an_app_that_requires_an_organization_refuses_a_person_without_one() {
    apps_that_ask_or_require(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_the_organization_in_tokens_behaves_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    tokens_carry_the_organization(TestApp::on_dynamo(&local, "oidc_orgs").await).await;
    apps_that_ask_or_require(TestApp::on_dynamo(&local, "oidc_org_apps").await).await;
}
