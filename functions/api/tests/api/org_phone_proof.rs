//! The phone proof of a person an organization's WeCom, DingTalk or Feishu connection vouches
//! for without a company mail (docs/organizations-connections.md §0.6): the callback answers
//! `orgPending`, the public providers' pending identity; `POST /auth/federation/phone` proves a
//! mainland phone, then the phone's account (or, after `POST /auth/federation/register`, a new
//! one) gets the company link and, per the connection's just-in-time rule, the membership; the
//! organization's `mfaRequired` holds (the identity provider's second factor, else the account's
//! own, else refused). Over HTTP against the local protocol servers, on SQLite and DynamoDB
//! Local.

use crate::helpers::federation::post;
use crate::helpers::orgs::set_up_operator as operator;
use crate::helpers::*;
use crate::org_signin_china::{
    li_lei, spa_param, world, Proto, World, BIND, DINGTALK, FEISHU, WECOM,
};
use axum::http::Method;
use ciam_core::org::connections::{self, ConnId};
use ciam_core::org::{self, Role};
use ciam_fakes::Person;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::{Cond, Key, Store, Update};
use serde_json::{json, Value};
use std::sync::Arc;

const NEW: &str = "13800138021";
const ANN: &str = "13800138022";
const CARL: &str = "13800138023";

/// A tested connection of `p` (just in time `join`), on.
async fn on(w: &World, p: &Proto) -> ConnId {
    let conn = w.connect(p, p.secret).await;
    w.test_page(p, &conn).await;
    let c = w.connection(&conn).await;
    connections::set_on(&w.app.ciam, &operator(), &c, true)
        .await
        .expect("on");
    conn
}

fn person(union: &str, userid: &str) -> Person {
    Person {
        unionid: union.into(),
        userid: userid.into(),
        ..li_lei(None)
    }
}

/// A sign-in through `conn` from a desktop that ends pending: its token.
async fn pending(w: &World, p: &Proto, conn: &ConnId) -> String {
    let to = w.sign_in(p, conn, None).await;
    spa_param(&to, "orgPending").unwrap_or_else(|| panic!("orgPending: {to}"))
}

async fn prove(w: &World, token: &str, phone: &str, code: &str) -> TestResponse {
    let body = json!({ "pending": token, "bind": BIND, "phone": phone, "code": code });
    post(&w.app, "/auth/federation/phone", &body).await
}

async fn prove_fresh(w: &World, token: &str, phone: &str) -> TestResponse {
    let code = w.app.fresh_code(phone, "link").await;
    prove(w, token, phone, &code).await
}

async fn register(w: &World, token: &str, user_name: &str) -> TestResponse {
    let body = json!({ "pending": token, "bind": BIND, "userName": user_name,
        "company": "Acme", "country": "CN", "acceptTerms": true });
    post(&w.app, "/auth/federation/register", &body).await
}

async fn role(w: &World, user_id: &str) -> Option<Role> {
    org::role_of(w.app.ciam.store.as_ref(), &w.org, user_id)
        .await
        .expect("read")
}

/// The account the company link of `conn`'s `subject` names.
async fn linked(w: &World, conn: &ConnId, subject: &str) -> Option<String> {
    let key = Key::new(format!("FEDID#org:{}#{subject}", conn.as_str()), "LINK");
    let item = w.app.store.get(&key).await.expect("get")?;
    item.s("userId").map(str::to_owned)
}

async fn links(w: &World, user_id: &str) -> i64 {
    let item = w.app.user_item(user_id).await.expect("user");
    item.n("links").unwrap_or_default()
}

/// The organization's audit slice, as its owner reads it.
async fn audit(w: &World) -> Value {
    let p = format!("/org/{}/audit", w.org);
    let req = request_as(Method::GET, &p, Some(&w.owner_token))
        .body(axum::body::Body::empty())
        .expect("request");
    w.app.call(req).await.ok(200)["entries"].clone()
}

async fn joined_by_connection(w: &World, user_id: &str) -> bool {
    let entries = audit(w).await;
    entries.as_array().expect("entries").iter().any(|e| {
        let s = e.to_string();
        s.contains("member.join") && s.contains(user_id)
    })
}

async fn dingtalk(app: TestApp) {
    let w = world(app, &DINGTALK).await;
    w.person(&DINGTALK, li_lei(None));
    let conn = on(&w, &DINGTALK).await;

    // A new person: the phone proof, then the sign-up; a new account, member, linked.
    let token = pending(&w, &DINGTALK, &conn).await;
    assert_eq!(prove_fresh(&w, &token, NEW).await.ok(202)["next"], "signUp");
    let li = register(&w, &token, "lilei").await.ok(200)["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    assert_eq!(w.app.owner_of(NEW).await.as_deref(), Some(li.as_str()));
    assert_eq!(role(&w, &li).await, Some(Role::Member));
    assert!(joined_by_connection(&w, &li).await);
    assert_eq!(
        linked(&w, &conn, "union-li-lei").await.as_deref(),
        Some(li.as_str())
    );
    assert_eq!(links(&w, &li).await, 1);
    // The pending identity is used up: a second proof or sign-up is refused (before any code
    // is judged).
    prove(&w, &token, NEW, "123456")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    register(&w, &token, "lilei2")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // Again: straight in by the link.
    let to = w.sign_in(&DINGTALK, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, li);

    // An account with the phone already: linked and joined, signed in with the organization.
    let ann = w.app.sign_up("ann", ANN).await;
    w.person(&DINGTALK, person("union-ann", "ann"));
    let token = pending(&w, &DINGTALK, &conn).await;
    // A wrong code first: refused, the pending identity kept.
    w.app.send_code(ANN, "link").await.ok(200);
    let right = w.app.code_for(ANN, "link");
    prove(&w, &token, ANN, &wrong_code(&right))
        .await
        .error(400, "CODE_ERROR");
    let signed = prove(&w, &token, ANN, &right).await.ok(200);
    assert_eq!(signed["userId"], ann.as_str());
    assert_eq!(role(&w, &ann).await, Some(Role::Member));
    assert_eq!(
        linked(&w, &conn, "union-ann").await.as_deref(),
        Some(ann.as_str())
    );
    assert_eq!(links(&w, &ann).await, 1);
    let to = w.sign_in(&DINGTALK, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, ann);

    // The company's identity provider changed the person's id: the phone proof replaces the
    // account's link; the count stays, the old lookup goes.
    w.person(&DINGTALK, person("union-ann-2", "ann"));
    let token = pending(&w, &DINGTALK, &conn).await;
    w.app.clock.advance(61);
    prove_fresh(&w, &token, ANN).await.ok(200);
    assert_eq!(
        linked(&w, &conn, "union-ann-2").await.as_deref(),
        Some(ann.as_str())
    );
    assert_eq!(linked(&w, &conn, "union-ann").await, None);
    assert_eq!(links(&w, &ann).await, 1);

    // A pending identity past its 15 minutes.
    w.person(&DINGTALK, person("union-late", "late"));
    let token = pending(&w, &DINGTALK, &conn).await;
    w.app.clock.advance(15 * 60 + 1);
    prove(&w, &token, CARL, "123456")
        .await
        .error(401, "AUTHORIZATION_FAILED");

    // Just in time `off`: an account that is no member is refused, and so is a new one.
    let path = format!("/org/{}/connections/{}", w.org, conn.as_str());
    let req = json_request(
        Method::PATCH,
        &path,
        Some(&w.owner_token),
        &json!({ "jit": "off" }),
    );
    w.app.call(req).await.ok(200);
    let carl = w.app.sign_up("carl", CARL).await;
    w.person(&DINGTALK, person("union-carl", "carl"));
    let token = pending(&w, &DINGTALK, &conn).await;
    prove_fresh(&w, &token, CARL)
        .await
        .error(403, "FEDERATION_NOT_PERMITTED");
    assert_eq!(role(&w, &carl).await, None);
    assert_eq!(linked(&w, &conn, "union-carl").await, None);
    prove_fresh(&w, &token, "13800138024")
        .await
        .error(403, "FEDERATION_NOT_PERMITTED");
    // The member still signs in by the link.
    w.person(&DINGTALK, person("union-ann-2", "ann"));
    let to = w.sign_in(&DINGTALK, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, ann);
}

async fn wecom(app: TestApp) {
    let w = world(app, &WECOM).await;
    w.person(&WECOM, li_lei(None));
    let conn = on(&w, &WECOM).await;
    // WeCom's web login gives no corp mailbox: the phone proof, then the sign-up.
    w.person(&WECOM, person("union-han-mei", "hanmei"));
    let token = pending(&w, &WECOM, &conn).await;
    prove_fresh(&w, &token, NEW).await.ok(202);
    let han = register(&w, &token, "hanmei").await.ok(200)["userId"]
        .as_str()
        .expect("userId")
        .to_owned();
    assert_eq!(role(&w, &han).await, Some(Role::Member));
    let subject = format!("{}/hanmei", ciam_fakes::wecom::CORP_ID);
    assert_eq!(
        linked(&w, &conn, &subject).await.as_deref(),
        Some(han.as_str())
    );
    let to = w.sign_in(&WECOM, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, han);
}

/// The organization requires a second factor and DingTalk gives none: a new account (which has
/// none) is refused before the sign-up; an account without its own is refused; an account with
/// its own gets the second step (NEED_TOTP_VERIFY), linked and joined.
async fn second_factor(app: TestApp) {
    let w = world(app, &DINGTALK).await;
    w.person(&DINGTALK, li_lei(None));
    let conn = on(&w, &DINGTALK).await;
    w.app
        .ciam
        .store
        .update(
            &org::org_key(&w.org),
            vec![Update::Set("mfaRequired".into(), true.into())],
            Some(Cond::Exists),
        )
        .await
        .expect("mfaRequired");
    let token = pending(&w, &DINGTALK, &conn).await;
    prove_fresh(&w, &token, NEW)
        .await
        .error(403, "FEDERATION_NOT_PERMITTED");
    assert_eq!(w.app.owner_of(NEW).await, None);

    let ann = w.app.sign_up("ann", ANN).await;
    w.person(&DINGTALK, person("union-ann", "ann"));
    let token = pending(&w, &DINGTALK, &conn).await;
    prove_fresh(&w, &token, ANN)
        .await
        .error(403, "FEDERATION_NOT_PERMITTED");
    assert_eq!(role(&w, &ann).await, None);
    w.app
        .ciam
        .store
        .update(
            &ciam_core::user::profile_key(&ann),
            vec![Update::Set("enableTotp".into(), true.into())],
            Some(Cond::Exists),
        )
        .await
        .expect("totp on");
    w.app.clock.advance(61);
    let asked = prove_fresh(&w, &token, ANN)
        .await
        .error(403, "NEED_TOTP_VERIFY");
    assert!(asked["challenge"].is_string(), "{asked}");
    assert_eq!(role(&w, &ann).await, Some(Role::Member));
    assert_eq!(
        linked(&w, &conn, "union-ann").await.as_deref(),
        Some(ann.as_str())
    );
}

/// The mail path's link write is the same: Feishu's tenant mail finds the account again under a
/// new subject (the company's identity provider changed its ids); the link is replaced, the
/// count stays, the old lookup goes.
async fn replaced_by_mail(app: TestApp) {
    let w = world(app, &FEISHU).await;
    w.person(&FEISHU, li_lei(None));
    let conn = on(&w, &FEISHU).await;
    let to = w.sign_in(&FEISHU, &conn, None).await;
    let li = w.signed_in(&to).await;
    assert_eq!(links(&w, &li).await, 1);
    w.person(&FEISHU, person("union-li-lei-2", "lilei"));
    let to = w.sign_in(&FEISHU, &conn, None).await;
    assert_eq!(w.signed_in(&to).await, li);
    assert_eq!(links(&w, &li).await, 1);
    assert_eq!(
        linked(&w, &conn, "union-li-lei-2").await.as_deref(),
        Some(li.as_str())
    );
    assert_eq!(linked(&w, &conn, "union-li-lei").await, None);
}

#[tokio::test]
async fn org_phone_proof_replaced_by_mail_on_sqlite() {
    replaced_by_mail(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_phone_proof_replaced_by_mail_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    replaced_by_mail(TestApp::on_dynamo(&local, "org_phone_mail").await).await;
}

#[tokio::test]
async fn org_phone_proof_second_factor_on_sqlite() {
    second_factor(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_phone_proof_second_factor_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    second_factor(TestApp::on_dynamo(&local, "org_phone_mfa").await).await;
}

#[tokio::test]
async fn org_phone_proof_dingtalk_on_sqlite() {
    dingtalk(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_phone_proof_dingtalk_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    dingtalk(TestApp::on_dynamo(&local, "org_phone_dingtalk").await).await;
}

#[tokio::test]
async fn org_phone_proof_wecom_on_sqlite() {
    wecom(TestApp::spawn().await).await;
}

#[tokio::test]
async fn org_phone_proof_wecom_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    wecom(TestApp::on_dynamo(&local, "org_phone_wecom").await).await;
}
