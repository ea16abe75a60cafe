//! Organizations (issue 35, docs/organizations-design.md): the store operations of the
//! foundation; the invitation lifecycle (sent, accepted by a new and by an existing account,
//! expired, revoked, used twice, accepted twice at once); who may do what, walked over every
//! "My company" route with each role; the last owner kept; a customer's request approved or
//! refused in the console; suggestions from free-text companies. On SQLite and DynamoDB Local.

use crate::helpers::{TestApp, TestResponse};
use axum::http::Method;
use ciam_core::console::Role as ConsoleRole;
use ciam_core::notifier::Notice;
use ciam_core::org::{self, NewOrg, Role, Status};
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::Arc;

impl TestApp {
    pub(crate) async fn request_org(&self, token: &str, body: &Value) -> TestResponse {
        self.send_json(Method::POST, "/org/requests", Some(token), body)
            .await
    }

    async fn org_call(
        &self,
        m: Method,
        p: &str,
        token: &str,
        body: Option<&Value>,
    ) -> TestResponse {
        self.admin_call(m, p, Some(token), body).await
    }

    pub(crate) async fn invite(
        &self,
        token: &str,
        org: &str,
        to: &str,
        role: Option<&str>,
    ) -> TestResponse {
        let mut b = json!({ "to": to });
        if let Some(r) = role {
            b["role"] = json!(r);
        }
        let p = format!("/org/{org}/invitations");
        self.org_call(Method::POST, &p, token, Some(&b)).await
    }

    pub(crate) async fn accept(&self, token: &str, invitation: &str) -> TestResponse {
        let b = json!({ "token": invitation });
        self.send_json(Method::POST, "/org/invitations/accept", Some(token), &b)
            .await
    }

    /// The token of the last invitation sent to `to` (from the link in its message).
    pub(crate) fn invitation_for(&self, to: &str) -> String {
        self.outbox
            .notices()
            .into_iter()
            .rev()
            .find_map(|n| match n.notice {
                Notice::OrgInvitation { link, .. } if n.to.as_str() == to => Some(link),
                _ => None,
            })
            .and_then(|l| l.split("token=").nth(1).map(str::to_owned))
            .unwrap_or_else(|| panic!("no invitation sent to {to}"))
    }

    /// An active organization made by an operator, owned by `owner`: its id.
    pub(crate) async fn org_owned_by(&self, operator: &str, owner: &str, name: &str) -> String {
        let b = json!({ "reason": "contract", "nameEn": name, "ownerId": owner });
        self.org_call(Method::POST, "/admin/organizations", operator, Some(&b))
            .await
            .ok(201)["orgId"]
            .as_str()
            .expect("orgId")
            .to_owned()
    }

    async fn my_orgs(&self, token: &str) -> Vec<(String, String)> {
        self.org_call(Method::GET, "/org/mine", token, None)
            .await
            .ok(200)["organizations"]
            .as_array()
            .expect("organizations")
            .iter()
            .map(|o| {
                (
                    o["organization"]["orgId"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                    o["role"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }
}

fn acme(owner: &str) -> NewOrg {
    NewOrg {
        name_zh: "艾克姆".into(),
        name_en: "Acme".into(),
        status: Status::Active,
        owner: Some(owner.to_owned()),
        by: "operator-1".into(),
        by_role: "operator".into(),
        reason: Some("contract signed".into()),
    }
}

async fn roles_are_read_by_key(app: TestApp) {
    let store = app.ciam.store.as_ref();
    let a = org::create(&app.ciam, acme("ann"), vec![])
        .await
        .expect("a");
    let b = org::create(&app.ciam, acme("bob"), vec![])
        .await
        .expect("b");
    assert_eq!(
        org::role_of(store, &a.org_id, "ann").await.expect("read"),
        Some(Role::Owner)
    );
    assert_eq!(
        org::role_of(store, &a.org_id, "bob").await.expect("read"),
        None
    );
    assert_eq!(
        org::role_of(store, &b.org_id, "bob").await.expect("read"),
        Some(Role::Owner)
    );
    let mine = org::memberships_of(store, "ann").await.expect("read");
    assert_eq!(
        mine.iter().map(|m| m.org_id.as_str()).collect::<Vec<_>>(),
        [a.org_id.as_str()]
    );
    app.store.take_calls();
    let (o, m) = org::with_membership(store, &b.org_id, "ann")
        .await
        .expect("read");
    assert_eq!((o.map(|o| o.name_en), m), (Some("Acme".to_owned()), None));
    assert_eq!(
        app.store.take_calls(),
        [("get_many", 2)],
        "the organization and the role: one call"
    );
}

#[tokio::test]
async fn an_owners_role_is_read_by_key_and_another_orgs_owner_has_none() {
    roles_are_read_by_key(TestApp::spawn().await).await;
}

/// The whole life of invitations: a new account and an existing one join; expired, revoked,
/// used, forwarded and already-a-member invitations are refused with their own reasons.
async fn invitation_lifecycle(app: &TestApp) {
    let (_, op) = app.staffer("op", Some(ConsoleRole::Operator)).await;
    let (ann, ann_t) = app.staffer("ann", None).await;
    let org = app.org_owned_by(&op, &ann, "Acme").await;
    // A new account: invited, signs up with the invited mail, accepts.
    let inv = app
        .invite(&ann_t, &org, "bob@example.com", Some("admin"))
        .await
        .ok(201);
    assert_eq!(
        (inv["role"].as_str(), inv["status"].as_str()),
        (Some("admin"), Some("pending"))
    );
    assert_ne!(inv["to"], "bob@example.com", "masked");
    let bob_token = app.invitation_for("bob@example.com");
    let (_, bob_t) = app.staffer("bob", None).await;
    let joined = app.accept(&bob_t, &bob_token).await.ok(200);
    assert_eq!(
        (joined["orgId"].as_str(), joined["role"].as_str()),
        (Some(org.as_str()), Some("admin"))
    );
    assert_eq!(
        app.my_orgs(&bob_t).await,
        [(org.clone(), "admin".to_owned())]
    );
    // Sent again by the same person (a lost answer): the same membership, nothing twice.
    app.accept(&bob_t, &bob_token).await.ok(200);
    // An existing account, invited by the new admin.
    let (_, carol_t) = app.staffer("carol", None).await;
    app.invite(&bob_t, &org, "carol@example.com", None)
        .await
        .ok(201);
    let carol_token = app.invitation_for("carol@example.com");
    app.accept(&carol_t, &carol_token).await.ok(200);
    // Used: another person with the link.
    let (_, dave_t) = app.staffer("dave", None).await;
    app.accept(&dave_t, &carol_token)
        .await
        .error(409, "ORG_INVITATION_USED");
    // Forwarded: the invited address is not the account's.
    app.invite(&ann_t, &org, "erin@example.com", None)
        .await
        .ok(201);
    let erin_token = app.invitation_for("erin@example.com");
    app.accept(&dave_t, &erin_token)
        .await
        .error(403, "ORG_INVITATION_NOT_YOURS");
    // Revoked.
    let frank = app
        .invite(&ann_t, &org, "frank@example.com", None)
        .await
        .ok(201);
    let frank_token = app.invitation_for("frank@example.com");
    let revoke = format!(
        "/org/{org}/invitations/{}",
        frank["invId"].as_str().expect("invId")
    );
    app.org_call(Method::DELETE, &revoke, &ann_t, None)
        .await
        .ok(200);
    app.org_call(Method::DELETE, &revoke, &ann_t, None)
        .await
        .error(404, "ORG_INVITATION_NOT_FOUND");
    let (_, frank_t) = app.staffer("frank", None).await;
    app.accept(&frank_t, &frank_token)
        .await
        .error(410, "ORG_INVITATION_REVOKED");
    // Already a member.
    app.invite(&ann_t, &org, "carol@example.com", None)
        .await
        .ok(201);
    let again = app.invitation_for("carol@example.com");
    app.accept(&carol_t, &again)
        .await
        .error(409, "ORG_ALREADY_MEMBER");
    // Expired after 7 days (the clock moved), and a token nobody sent.
    app.clock.advance(7 * 86_400 + 1);
    let (_, erin_t) = app.staffer("erin", None).await;
    let ann_t = app
        .sign_in("ann@example.com", crate::helpers::PASSWORD)
        .await;
    app.accept(&erin_t, &erin_token)
        .await
        .error(410, "ORG_INVITATION_EXPIRED");
    app.accept(&erin_t, "not-a-token")
        .await
        .error(410, "ORG_INVITATION_EXPIRED");
    // The organization as its owner sees it: three members, the expired invitations gone.
    let page = app
        .org_call(Method::GET, &format!("/org/{org}"), &ann_t, None)
        .await
        .ok(200);
    assert_eq!(page["members"].as_array().map(Vec::len), Some(3));
    assert_eq!(page["organization"]["members"], 3);
    assert_eq!(page["invitations"].as_array().map(Vec::len), Some(0));
    // Every step in the organization's audit slice, newest first.
    let log = app
        .org_call(Method::GET, &format!("/org/{org}/audit"), &ann_t, None)
        .await
        .ok(200);
    let actions: Vec<&str> = log["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert_eq!(
        actions
            .iter()
            .filter(|a| **a == "invitation.accept")
            .count(),
        2
    );
    assert_eq!(
        actions
            .iter()
            .filter(|a| **a == "invitation.create")
            .count(),
        5
    );
    assert!(actions.contains(&"org.create"), "{actions:?}");
}

#[tokio::test]
async fn invitations_are_accepted_once_by_the_invited_address_until_they_expire_or_are_revoked() {
    invitation_lifecycle(&TestApp::spawn().await).await;
}

/// Two accepts of one invitation at once: one membership, one entry, both answers the same.
async fn accepted_twice_at_once(app: &TestApp) {
    let (_, op) = app.staffer("op", Some(ConsoleRole::Operator)).await;
    let (ann, ann_t) = app.staffer("ann", None).await;
    let org = app.org_owned_by(&op, &ann, "Acme").await;
    app.invite(&ann_t, &org, "bob@example.com", None)
        .await
        .ok(201);
    let token = app.invitation_for("bob@example.com");
    let (_, bob_t) = app.staffer("bob", None).await;
    let (a, b) = tokio::join!(app.accept(&bob_t, &token), app.accept(&bob_t, &token));
    let ok = [&a, &b].iter().filter(|r| r.status.as_u16() == 200).count();
    assert!(ok >= 1, "{} / {}", a.text, b.text);
    for r in [&a, &b] {
        assert!(
            r.status.as_u16() == 200 || r.reason() == "SERVICE_UNAVAILABLE",
            "{}",
            r.text
        );
    }
    let page = app
        .org_call(Method::GET, &format!("/org/{org}"), &ann_t, None)
        .await
        .ok(200);
    assert_eq!(page["organization"]["members"], 2, "one membership added");
    let id = org::OrgId::parse(&org).expect("id");
    let accepts = org::audit::page(app.ciam.store.as_ref(), &id, None)
        .await
        .expect("slice")
        .into_iter()
        .filter(|e| e.action == "invitation.accept")
        .count();
    assert_eq!(accepts, 1);
}

#[tokio::test]
async fn an_invitation_accepted_twice_at_once_makes_one_membership() {
    accepted_twice_at_once(&TestApp::spawn().await).await;
}

/// Who may do what: owner, admin, member, a stranger and another organization's admin over every
/// "My company" route; console viewers read, operators act.
async fn who_may_do_what(app: &TestApp) {
    let (_, op) = app.staffer("op", Some(ConsoleRole::Operator)).await;
    let (_, viewer) = app.staffer("viewer", Some(ConsoleRole::Viewer)).await;
    let (owner, owner_t) = app.staffer("owner", None).await;
    let org = app.org_owned_by(&op, &owner, "Acme").await;
    let mut joined = Vec::new();
    for (name, role) in [("adm", "admin"), ("mem", "member"), ("mem2", "member")] {
        let mail = format!("{name}@example.com");
        app.invite(&owner_t, &org, &mail, Some(role)).await.ok(201);
        let t = app.invitation_for(&mail);
        let (id, tok) = app.staffer(name, None).await;
        app.accept(&tok, &t).await.ok(200);
        joined.push((id, tok));
    }
    let [(adm, adm_t), (mem, mem_t), (mem2, _)] = <[_; 3]>::try_from(joined).expect("three");
    let (_, stranger_t) = app.staffer("stranger", None).await;
    let (other, other_t) = app.staffer("other", None).await;
    let _other_org = app.org_owned_by(&op, &other, "Other").await;
    let _ = other;
    let path = |p: &str| format!("/org/{org}{p}");
    let get = |t: &str, p: &str| {
        let (t, p) = (t.to_owned(), path(p));
        async move { app.org_call(Method::GET, &p, &t, None).await }
    };
    // Reading: every member reads the organization; only admins and owners its lists and log.
    get(&owner_t, "").await.ok(200);
    let as_member = get(&mem_t, "").await.ok(200);
    assert_eq!(as_member["role"], "member");
    assert_eq!(as_member["members"], json!([]), "a member sees no list");
    for t in [&stranger_t, &other_t] {
        get(t, "").await.error(404, "ORG_NOT_FOUND");
        get(t, "/audit").await.error(404, "ORG_NOT_FOUND");
        app.invite(t, &org, "x@example.com", None)
            .await
            .error(404, "ORG_NOT_FOUND");
        let p = path(&format!("/members/{mem}"));
        app.org_call(Method::DELETE, &p, t, None)
            .await
            .error(404, "ORG_NOT_FOUND");
        app.org_call(Method::PUT, &p, t, Some(&json!({"role": "admin"})))
            .await
            .error(404, "ORG_NOT_FOUND");
    }
    get(&adm_t, "/audit").await.ok(200);
    get(&mem_t, "/audit").await.error(403, "ORG_ROLE_FORBIDDEN");
    // Inviting: members never; admins not owners; owners anyone.
    app.invite(&mem_t, &org, "x@example.com", None)
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    app.invite(&adm_t, &org, "x@example.com", Some("owner"))
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    app.invite(&adm_t, &org, "x@example.com", Some("admin"))
        .await
        .ok(201);
    app.invite(&owner_t, &org, "y@example.com", Some("owner"))
        .await
        .ok(201);
    // Roles: an admin moves members, never an owner, never to owner, never themselves.
    let role = |who: &str| path(&format!("/members/{who}"));
    let set = |t: &str, who: &str, r: &str| {
        let (t, p, b) = (t.to_owned(), role(who), json!({ "role": r }));
        async move { app.org_call(Method::PUT, &p, &t, Some(&b)).await }
    };
    set(&mem_t, &mem2, "admin")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    set(&adm_t, &owner, "member")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    set(&adm_t, &mem, "owner")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    set(&adm_t, &adm, "member")
        .await
        .error(403, "ORG_ROLE_FORBIDDEN");
    assert_eq!(set(&adm_t, &mem, "admin").await.ok(200)["role"], "admin");
    set(&adm_t, &mem, "member").await.ok(200);
    set(&owner_t, "0123456789abcdef0123456789abcdef", "member")
        .await
        .error(404, "ORG_MEMBER_NOT_FOUND");
    // Removing: a member only themselves; an admin not an owner.
    let del = |t: &str, who: &str| {
        let (t, p) = (t.to_owned(), role(who));
        async move { app.org_call(Method::DELETE, &p, &t, None).await }
    };
    del(&mem_t, &mem2).await.error(403, "ORG_ROLE_FORBIDDEN");
    del(&adm_t, &owner).await.error(403, "ORG_ROLE_FORBIDDEN");
    del(&adm_t, &mem2).await.ok(200);
    del(&mem_t, &mem).await.ok(200);
    assert_eq!(app.my_orgs(&mem_t).await, []);
    // The console: a viewer reads, cannot act; an operator acts with a reason.
    let console = format!("/admin/organizations/{org}");
    let seen = app
        .org_call(Method::GET, &console, &viewer, None)
        .await
        .ok(200);
    assert_eq!(seen["organization"]["members"], 2);
    let act = json!({ "reason": "customer asked", "role": "member" });
    let member_row = format!("{console}/members/{adm}");
    app.org_call(Method::POST, &member_row, &viewer, Some(&act))
        .await
        .error(403, "PERMISSION_DENIED");
    app.org_call(Method::POST, &member_row, &op, Some(&act))
        .await
        .ok(200);
    let log = get(&owner_t, "/audit").await.ok(200);
    let by_op: Vec<_> = log["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter(|e| e["actorRole"] == "operator" && e["action"] != "org.create")
        .map(|e| {
            (
                e["action"].clone(),
                e["reason"].clone(),
                e["target"].clone(),
            )
        })
        .collect();
    assert_eq!(
        by_op,
        [(json!("member.role"), json!("customer asked"), json!(adm))]
    );
}

#[tokio::test]
async fn each_role_may_do_exactly_its_part_and_strangers_learn_nothing() {
    who_may_do_what(&TestApp::spawn().await).await;
}

/// An organization keeps an owner: the last one can neither leave, be removed nor be demoted,
/// by anyone; once another is owner, they can.
async fn last_owner_kept(app: &TestApp) {
    let (_, op) = app.staffer("op", Some(ConsoleRole::Operator)).await;
    let (ann, ann_t) = app.staffer("ann", None).await;
    let org = app.org_owned_by(&op, &ann, "Acme").await;
    let me = format!("/org/{org}/members/{ann}");
    app.org_call(Method::DELETE, &me, &ann_t, None)
        .await
        .error(409, "ORG_LAST_OWNER");
    let console = format!("/admin/organizations/{org}/members/{ann}");
    for body in [
        json!({"reason": "r", "remove": true}),
        json!({"reason": "r", "role": "admin"}),
    ] {
        app.org_call(Method::POST, &console, &op, Some(&body))
            .await
            .error(409, "ORG_LAST_OWNER");
    }
    app.invite(&ann_t, &org, "bob@example.com", Some("owner"))
        .await
        .ok(201);
    let t = app.invitation_for("bob@example.com");
    let (_, bob_t) = app.staffer("bob", None).await;
    app.accept(&bob_t, &t).await.ok(200);
    app.org_call(Method::DELETE, &me, &ann_t, None)
        .await
        .ok(200);
    let page = app
        .org_call(Method::GET, &format!("/org/{org}"), &bob_t, None)
        .await
        .ok(200);
    assert_eq!(
        (
            page["organization"]["owners"].as_i64(),
            page["role"].as_str()
        ),
        (Some(1), Some("owner"))
    );
}

#[tokio::test]
async fn the_last_owner_can_neither_leave_nor_be_removed_nor_demoted() {
    last_owner_kept(&TestApp::spawn().await).await;
}

/// A customer asks; the console lists the request; an operator approves (the asker owns it) or
/// refuses (it is gone); a fourth pending request is refused.
async fn request_and_approve(app: &TestApp) {
    let (_, op) = app.staffer("op", Some(ConsoleRole::Operator)).await;
    let (_, cus_t) = app.staffer("cus", None).await;
    let mut asked = Vec::new();
    for n in ["One", "Two", "Three"] {
        let o = app
            .request_org(&cus_t, &json!({ "nameEn": n }))
            .await
            .ok(201);
        assert_eq!(o["status"], "requested");
        asked.push(o["orgId"].as_str().expect("orgId").to_owned());
    }
    app.request_org(&cus_t, &json!({ "nameEn": "Four" }))
        .await
        .error(409, "ORG_REQUEST_LIMIT");
    assert_eq!(
        app.my_orgs(&cus_t).await,
        [],
        "a request is no organization yet"
    );
    let listed = app
        .org_call(Method::GET, "/admin/organizations/requests", &op, None)
        .await
        .ok(200);
    assert_eq!(listed["requests"].as_array().map(Vec::len), Some(3));
    let op = op.as_str();
    let decide = |id: &str, what: &str| {
        let p = format!("/admin/organizations/{id}/{what}");
        async move {
            app.org_call(Method::POST, &p, op, Some(&json!({ "reason": "checked" })))
                .await
        }
    };
    assert_eq!(
        decide(&asked[0], "approve").await.ok(200)["status"],
        "active"
    );
    decide(&asked[0], "approve")
        .await
        .error(409, "ORG_NOT_ACTIVE");
    decide(&asked[1], "refuse").await.ok(200);
    app.org_call(
        Method::GET,
        &format!("/admin/organizations/{}", asked[1]),
        op,
        None,
    )
    .await
    .error(404, "ORG_NOT_FOUND");
    assert_eq!(
        app.my_orgs(&cus_t).await,
        [(asked[0].clone(), "owner".to_owned())]
    );
    let listed = app
        .org_call(Method::GET, "/admin/organizations/requests", op, None)
        .await
        .ok(200);
    assert_eq!(
        listed["requests"][0]["orgId"].as_str(),
        Some(asked[2].as_str())
    );
    // Two decided: two more may be asked for.
    app.clock.advance(1);
    app.request_org(&cus_t, &json!({ "nameZh": "四" }))
        .await
        .ok(201);
    // Suspended by an operator: nothing is managed until it is reactivated.
    let p = format!("/admin/organizations/{}", asked[0]);
    let suspend = json!({ "reason": "unpaid", "status": "suspended" });
    app.org_call(Method::PATCH, &p, op, Some(&suspend))
        .await
        .ok(200);
    app.invite(&cus_t, &asked[0], "x@example.com", None)
        .await
        .error(409, "ORG_NOT_ACTIVE");
    let all = app
        .org_call(Method::GET, "/admin/organizations", op, None)
        .await
        .ok(200);
    assert_eq!(
        all["organizations"][0]["status"], "requested",
        "newest first"
    );
    assert!(all["organizations"]
        .as_array()
        .expect("list")
        .iter()
        .any(|o| o["orgId"] == asked[0].as_str() && o["status"] == "suspended"));
}

#[tokio::test]
async fn a_requested_organization_is_approved_or_refused_in_the_console() {
    request_and_approve(&TestApp::spawn().await).await;
}

/// Free-text companies become suggestions: names with their account counts, by prefix.
async fn suggested(app: &TestApp) {
    let (_, viewer) = app.staffer("viewer", Some(ConsoleRole::Viewer)).await;
    app.sign_up("acme2", "acme2@example.com").await;
    let got = app
        .org_call(
            Method::GET,
            "/admin/organizations/suggestions?q=ACME",
            &viewer,
            None,
        )
        .await
        .ok(200);
    assert_eq!(
        got["companies"],
        json!([{ "company": "Acme Robotics", "accounts": 2 }])
    );
    app.org_call(
        Method::GET,
        "/admin/organizations/suggestions?q=",
        &viewer,
        None,
    )
    .await
    .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn companies_on_accounts_are_suggested_with_their_account_counts() {
    suggested(&TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_organizations_behave_alike() {
    let local = Arc::new(DynamoLocal::start().await);
    roles_are_read_by_key(TestApp::on_dynamo(&local, "org_roles").await).await;
    invitation_lifecycle(&TestApp::on_dynamo(&local, "org_invitations").await).await;
    accepted_twice_at_once(&TestApp::on_dynamo(&local, "org_race").await).await;
    who_may_do_what(&TestApp::on_dynamo(&local, "org_walk").await).await;
    last_owner_kept(&TestApp::on_dynamo(&local, "org_owner").await).await;
    request_and_approve(&TestApp::on_dynamo(&local, "org_requests").await).await;
    suggested(&TestApp::on_dynamo(&local, "org_suggest").await).await;
}
