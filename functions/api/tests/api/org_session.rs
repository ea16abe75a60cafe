//! The session's organization (docs/organizations-connections.md §3): a session that signed in
//! through an organization's connection remembers it, and `/oidc/authorize` without an
//! `organization` parameter defaults to it (no picker) while the person is an active member of
//! an active organization; else the normal rules. An explicit parameter wins; the ticket login
//! shares the choice. The organization's
//! `mfaRequired`: the identity provider's second factor counts when the connection sets
//! `mfaAcr`, else Ciam's own is asked, and an account with neither is refused. The company's
//! link is listed in the security centre and deleted with the account. On SQLite and DynamoDB
//! Local.

use crate::helpers::*;
use crate::oidc::{param, verify_jwt, world_on, World, CB, VERIFIER};
use crate::org_signin::{
    company, connect_with, person, redeem, refused, session_of, sign_in_through, spawn_idp, Company,
};
use crate::two_factor::secret_of;
use axum::http::Method;
use ciam_core::org::{self, members, OrgId};
use ciam_core::totp::{code_at, STEP_SECS};
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, TxOp, Update};
use serde_json::{json, Value};
use std::sync::Arc;

const TICKET_URL: &str = "https://tickets.example.com/cb";

async fn join(app: &TestApp, org: &OrgId, user_id: &str) {
    let ops = members::join_ops(org, user_id, org::Role::Member, "test", app.now(), vec![]);
    app.ciam.store.transact(ops).await.expect("joined");
}

async fn drop_member(app: &TestApp, org: &OrgId, user_id: &str) {
    let tx = vec![
        TxOp::Delete {
            key: org::member_key(org, user_id),
            cond: Some(Cond::Exists),
        },
        TxOp::Delete {
            key: org::side_key(org, user_id),
            cond: None,
        },
    ];
    app.ciam.store.transact(tx).await.expect("removed");
}

async fn set(app: &TestApp, org: &OrgId, name: &str, value: ciam_store::Value) {
    app.ciam
        .store
        .update(
            &org::org_key(org),
            vec![Update::Set(name.into(), value)],
            Some(Cond::Exists),
        )
        .await
        .expect("set");
}

/// The organization step `GET /oidc/requests/{id}` shows for a request asking for the scope
/// `organization` (and naming `named`, when given), and the `org_id` of the id_token after
/// Allow (null when none).
async fn orgs_of(w: &World, named: Option<&str>) -> (Value, Value) {
    let mut over = vec![("scope", Some("openid organization"))];
    if named.is_some() {
        over.push(("organization", named));
    }
    let id = w.request_id(&over).await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    let redirect = w.allow(&id).await.ok(200)["redirect"]
        .as_str()
        .unwrap()
        .to_owned();
    let code = param(&redirect, "code").expect("code");
    let tokens = w.redeem(&code, VERIFIER, CB).await.ok(200);
    let jwks = crate::oidc::get(&w.app, "/oidc/jwks", &[]).await.ok(200);
    let (_, claims) = verify_jwt(tokens["id_token"].as_str().unwrap(), &jwks).expect("verified");
    (step, claims["org_id"].clone())
}

fn choices(step: &Value) -> Vec<String> {
    step["choices"]
        .as_array()
        .expect("choices")
        .iter()
        .map(|c| c["orgId"].as_str().unwrap().to_owned())
        .collect()
}

/// A company whose connection also sets `mfaAcr` (or not) and that requires a second factor.
async fn strict_company(
    app: &TestApp,
    owner: &str,
    name: &str,
    domain: &str,
    mfa_acr: Option<&str>,
) -> Company {
    let org = app.active_org(owner, name).await;
    app.claimed(&org, domain, "owner", true).await;
    set(app, &org, "mfaRequired", true.into()).await;
    let idp = spawn_idp(app, &format!("ciam-{}", name.to_lowercase()), "s3cret").await;
    let more: Vec<(&str, &str)> = mfa_acr.map(|a| ("mfaAcr", a)).into_iter().collect();
    let conn = connect_with(app, &org, &idp, "join", false, &more).await;
    Company { org, idp, conn }
}

/// Turns the authenticator app on for the session `token`: answers its secret.
async fn enrol_totp(app: &TestApp, token: &str) -> Vec<u8> {
    let url = app.get_totp_url(token).await.ok(200)["url"]
        .as_str()
        .expect("url")
        .to_owned();
    let secret = secret_of(&url);
    let code = code_at(&secret, app.now().div_euclid(STEP_SECS));
    app.totp_enable(token, &code).await.ok(200);
    secret
}

async fn session_org(app: TestApp) {
    let w: World = world_on(app).await;
    let app = &w.app;
    let boss = app.sign_up("boss", "boss@owners.example").await;
    let acme = company(app, &boss, "Acme", "acme.example", "join", "acme-secret").await;
    let other = app.active_org(&boss, "Other").await;

    // A company sign-in (just in time: a new account), who is also a member of another one.
    let to = sign_in_through(app, &acme, person("a-1", "li.lei@acme.example")).await;
    let signed_in = session_of(app, &to).await;
    let li = signed_in["userId"].as_str().unwrap().to_owned();
    join(app, &other, &li).await;
    let as_li = w.as_user(signed_in["token"].as_str().unwrap());
    // No parameter: the session's organization, no picker (one choice), into the tokens.
    let (step, org_id) = orgs_of(&as_li, None).await;
    assert_eq!(choices(&step), vec![acme.org.to_string()]);
    assert_eq!(org_id, acme.org.to_string());
    // An explicit parameter wins.
    let (step, org_id) = orgs_of(&as_li, Some(&other.to_string())).await;
    assert_eq!(choices(&step), vec![other.to_string()]);
    assert_eq!(org_id, other.to_string());
    // The ticket login shares the choice: the consent context offers it alone, the ticket
    // carries it.
    let admin = app.admin_session("admin@example.com").await;
    let portal = app
        .create_app(
            &admin,
            &json!({
                "name": { "zh-CN": "门户", "en-US": "Portal" },
                "serviceUrls": [TICKET_URL],
                "scopes": ["nickname"],
                "organization": "optional",
            }),
        )
        .await
        .ok(201);
    let portal_id = portal["app"]["appId"].as_str().unwrap().to_owned();
    let portal_secret = portal["appSecret"].as_str().unwrap().to_owned();
    let ctx = app
        .get_consent(&as_li.user, &portal_id, TICKET_URL)
        .await
        .ok(200);
    assert_eq!(choices(&ctx["organization"]), vec![acme.org.to_string()]);
    let t = app
        .issue_ticket(&as_li.user, &portal_id, TICKET_URL)
        .await
        .ok(200);
    let v = app
        .verify_ticket(
            &portal_id,
            &portal_secret,
            t["cTicket"].as_str().unwrap(),
            TICKET_URL,
        )
        .await
        .ok(200);
    assert_eq!(v["orgId"], acme.org.to_string());
    // The linked identities list the company's link, with the names (never the secret).
    let ids = app.get("/auth/identities", Some(&as_li.user)).await.ok(200);
    let list = ids["identities"].as_array().expect("identities").clone();
    assert_eq!(list.len(), 1, "{ids}");
    assert_eq!(list[0]["provider"], format!("org:{}", acme.conn.as_str()));
    assert_eq!(list[0]["organization"]["orgId"], acme.org.to_string());
    assert_eq!(list[0]["organization"]["nameEn"], "Acme");
    assert_eq!(list[0]["organization"]["connectionEn"], "Company sign-in");
    assert!(!ids.to_string().contains("acme-secret"), "{ids}");
    // The company's link is the company's: its owner cannot remove it.
    let unlink = format!("/auth/identities/org:{}", acme.conn.as_str());
    let req = request_as(Method::DELETE, &unlink, Some(&as_li.user))
        .body(axum::body::Body::empty())
        .expect("request");
    let r = app.call(req).await;
    assert!(r.status.is_client_error(), "{}", r.text);
    let ids = app.get("/auth/identities", Some(&as_li.user)).await.ok(200);
    assert_eq!(ids["identities"].as_array().map(Vec::len), Some(1), "{ids}");

    // Removed from the organization: the normal rules (here the one organization left).
    drop_member(app, &acme.org, &li).await;
    let (step, org_id) = orgs_of(&as_li, None).await;
    assert_eq!(choices(&step), vec![other.to_string()]);
    assert_eq!(org_id, other.to_string());
    // A member again, then the organization suspended: the normal rules too.
    join(app, &acme.org, &li).await;
    let (_, org_id) = orgs_of(&as_li, None).await;
    assert_eq!(org_id, acme.org.to_string());
    set(app, &acme.org, "status", "suspended".into()).await;
    let (step, org_id) = orgs_of(&as_li, None).await;
    assert_eq!(choices(&step), vec![other.to_string()]);
    assert_eq!(org_id, other.to_string());
    set(app, &acme.org, "status", "active".into()).await;
    // A password session of someone in both has no default: the picker.
    join(app, &acme.org, &w.user_id).await;
    join(app, &other, &w.user_id).await;
    let id = w
        .request_id(&[("scope", Some("openid organization"))])
        .await;
    let step = w.view(&id).await.ok(200)["organization"].clone();
    assert_eq!(choices(&step).len(), 2, "{step}");
    w.allow(&id).await.error(400, "INVALID_PARAMETER");

    // mfaRequired, the connection setting `mfaAcr`: the identity provider's second factor.
    let gamma = strict_company(app, &boss, "Gamma", "gamma.example", Some("urn:mfa")).await;
    let mut strong = person("g-1", "x@gamma.example");
    strong.acr = Some("urn:mfa".into());
    let to = sign_in_through(app, &gamma, strong).await;
    let s = session_of(app, &to).await;
    let as_x = w.as_user(s["token"].as_str().unwrap());
    let (_, org_id) = orgs_of(&as_x, None).await;
    assert_eq!(org_id, gamma.org.to_string());
    // Without it, an account with no second factor of its own is refused.
    let to = sign_in_through(app, &gamma, person("g-2", "y@gamma.example")).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    assert_eq!(app.owner_of("y@gamma.example").await, None);
    // A connection without `mfaAcr` does not count the provider's `acr`.
    let delta = strict_company(app, &boss, "Delta", "delta.example", None).await;
    let mut claimed = person("d-1", "z@delta.example");
    claimed.acr = Some("urn:mfa".into());
    let to = sign_in_through(app, &delta, claimed).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
    // An account with the authenticator app: Ciam's own second step, and the session it ends
    // in still remembers the organization.
    app.sign_up("zoe", "zoe@delta.example").await;
    let zoe_t = app.sign_in("zoe@delta.example", PASSWORD).await;
    let secret = enrol_totp(app, &zoe_t).await;
    let to = sign_in_through(app, &delta, person("d-2", "zoe@delta.example")).await;
    let code = param(&to, "orgCode").expect("orgCode");
    let body = redeem(app, &code).await.error(403, "NEED_TOTP_VERIFY");
    let challenge = body["challenge"].as_str().expect("challenge").to_owned();
    app.clock.advance(STEP_SECS);
    let otp = code_at(&secret, app.now().div_euclid(STEP_SECS));
    let s = app.login_totp(&challenge, &otp).await.ok(200);
    let as_zoe = w.as_user(s["token"].as_str().unwrap());
    let (step, org_id) = orgs_of(&as_zoe, None).await;
    assert_eq!(choices(&step), vec![delta.org.to_string()]);
    assert_eq!(org_id, delta.org.to_string());

    // Deactivation deletes the company's link: a new sign-in makes a new account (`join`).
    let han = app.sign_up("hanmei", "han.mei@acme.example").await;
    let to = sign_in_through(app, &acme, person("a-2", "han.mei@acme.example")).await;
    assert_eq!(session_of(app, &to).await["userId"], han.as_str());
    let han_t = app.sign_in("han.mei@acme.example", PASSWORD).await;
    let lookup = ciam_core::federation::company_links::link_key(&acme.conn, "a-2");
    assert!(app.ciam.store.get(&lookup).await.unwrap().is_some());
    app.deactivate(&han_t, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    assert!(app.ciam.store.get(&lookup).await.unwrap().is_none());
    let to = sign_in_through(app, &acme, person("a-2", "han.mei@acme.example")).await;
    let again = session_of(app, &to).await["userId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(again, han);
    // With just in time `off`, the same is refused (not a member any more).
    let beta = company(app, &boss, "Beta", "beta.example", "off", "beta-secret").await;
    let wang = app.sign_up("wangwu", "wang@beta.example").await;
    join(app, &beta.org, &wang).await;
    let to = sign_in_through(app, &beta, person("b-1", "wang@beta.example")).await;
    assert_eq!(session_of(app, &to).await["userId"], wang.as_str());
    let wang_t = app.sign_in("wang@beta.example", PASSWORD).await;
    app.deactivate(&wang_t, &json!({ "password": PASSWORD }))
        .await
        .ok(200);
    let to = sign_in_through(app, &beta, person("b-1", "wang@beta.example")).await;
    refused(&to, "FEDERATION_NOT_PERMITTED");
}

#[tokio::test]
async fn org_session_defaults_to_the_company_sign_ins_organization() {
    session_org(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_session_on_dynamodb_behaves_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    session_org(TestApp::on_dynamo(&local, "org_session").await).await;
}
