//! An organization's partner events (docs/organizations-design.md §6): an accepted invitation,
//! a removal, each written in the change's transaction and delivered (signed, by the existing
//! delivery, to a receiver on 127.0.0.1) once to the endpoints of the apps in the organization's
//! `eventApps`; an app not in it hears nothing, even one the member has a consent with; an
//! organization without `eventApps` writes no event. On SQLite and DynamoDB Local.

use crate::apps::{new_app, world_on, World, SERVICE};
use crate::helpers::{TestApp, PASSWORD};
use axum::extract::State;
use axum::http::{HeaderMap, Method};
use axum::routing::post;
use ciam_api::webhook_transport::{DnsResolver, HttpTransport};
use ciam_core::events::{self, Kind};
use ciam_core::webhooks::queue;
use ciam_store::dynamo_local::DynamoLocal;
use serde_json::{json, Value};
use std::sync::{Arc, Mutex};

/// What a receiver on 127.0.0.1 got: each request's signature header and body.
type Got = Arc<Mutex<Vec<(String, Value)>>>;

async fn hook(State(got): State<Got>, headers: HeaderMap, body: String) -> &'static str {
    let sig = headers
        .get("webhook-signature")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    got.lock()
        .unwrap()
        .push((sig, serde_json::from_str(&body).unwrap()));
    "ok"
}

async fn receiver() -> (Got, String) {
    let got = Got::default();
    let router = axum::Router::new()
        .route("/hook", post(hook))
        .with_state(got.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
    (got, format!("http://127.0.0.1:{port}/hook"))
}

const KINDS: [&str; 4] = [
    "organization.member_added",
    "organization.member_removed",
    "organization.invitation_accepted",
    "user.updated",
];

async fn endpoint(w: &World, app_id: &str, url: &str) {
    let body = json!({ "url": url, "events": KINDS, "description": "members" });
    let p = format!("/admin/apps/{app_id}/webhooks");
    w.app
        .send_json(Method::POST, &p, Some(&w.admin), &body)
        .await
        .ok(201);
}

/// Fans out the organization's events not yet fanned out (as `ciam serve`'s store marks them) and
/// delivers them; answers the events' kinds.
async fn deliver(app: &TestApp, org: &str, seen: &mut Vec<String>) -> Vec<Kind> {
    let fresh: Vec<_> = events::list(&app.ciam, &format!("ORG#{org}"))
        .await
        .unwrap()
        .into_iter()
        .filter(|e| !seen.contains(&e.id))
        .collect();
    for e in &fresh {
        seen.push(e.id.clone());
        let marker = queue::pending_op(&e.key()).unwrap();
        app.ciam.store.transact(vec![marker]).await.unwrap();
    }
    queue::fan_out_pending(&app.ciam).await.unwrap();
    queue::drain(&app.ciam, &HttpTransport, &DnsResolver)
        .await
        .unwrap();
    fresh.iter().map(|e| e.kind).collect()
}

fn types(got: &Got) -> Vec<String> {
    let mut t: Vec<String> = got
        .lock()
        .unwrap()
        .iter()
        .map(|(_, b)| b["type"].as_str().unwrap().to_owned())
        .collect();
    t.sort();
    t
}

async fn heard_by_event_apps_only(app: TestApp) {
    let w = world_on(app.configure(|c| c.webhooks_local_http = true)).await;
    let a = &w.app;
    let other = a.create_app(&w.admin, &new_app("Other")).await.ok(201)["app"]["appId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (heard, url) = receiver().await;
    let (unheard, other_url) = receiver().await;
    endpoint(&w, &w.app_id, &url).await;
    endpoint(&w, &other, &other_url).await;

    // An organization owned by ann, and Other consented to by bob (his own consent).
    let b = json!({ "reason": "contract", "nameEn": "Acme", "ownerId": w.user_id });
    let org = a
        .admin_call(
            Method::POST,
            "/admin/organizations",
            Some(&w.admin),
            Some(&b),
        )
        .await
        .ok(201)["orgId"]
        .as_str()
        .unwrap()
        .to_owned();
    let bob_id = a.sign_up("bob", "bob@example.com").await;
    let bob = a.sign_in("bob@example.com", PASSWORD).await;
    a.issue_ticket(&bob, &other, SERVICE).await.ok(200);
    let invite = |to: &'static str| {
        let p = format!("/org/{org}/invitations");
        let user = w.user.clone();
        async move {
            a.admin_call(Method::POST, &p, Some(&user), Some(&json!({ "to": to })))
                .await
                .ok(201);
            a.invitation_for(to)
        }
    };
    let accept = |token: String, session: String| async move {
        let b = json!({ "token": token });
        a.send_json(Method::POST, "/org/invitations/accept", Some(&session), &b)
            .await
            .ok(200);
    };
    let mut seen = Vec::new();

    // Without eventApps an accept writes no event.
    a.sign_up("cat", "cat@example.com").await;
    let cat = a.sign_in("cat@example.com", PASSWORD).await;
    accept(invite("cat@example.com").await, cat).await;
    assert_eq!(deliver(a, &org, &mut seen).await, vec![]);

    let p = format!("/admin/organizations/{org}");
    let b = json!({ "reason": "partner", "eventApps": [w.app_id] });
    a.admin_call(Method::PATCH, &p, Some(&w.admin), Some(&b))
        .await
        .ok(200);
    accept(invite("bob@example.com").await, bob.clone()).await;
    let mut kinds = deliver(a, &org, &mut seen).await;
    kinds.sort_by_key(|k| k.name());
    assert_eq!(
        kinds,
        vec![Kind::OrgInvitationAccepted, Kind::OrgMemberAdded]
    );
    assert_eq!(
        types(&heard),
        [
            "organization.invitation_accepted",
            "organization.member_added"
        ]
    );
    for (sig, body) in heard.lock().unwrap().iter() {
        assert!(sig.starts_with("v1,"), "signed: {sig}");
        assert_eq!(body["data"]["userId"], bob_id.as_str());
        assert_eq!(body["data"]["orgId"], org.as_str());
        assert_eq!(body["data"]["role"], "member");
        assert!(body["data"].get("email").is_none(), "no profile field");
    }
    let inv = heard.lock().unwrap().iter().find_map(|(_, b)| {
        (b["type"] == "organization.invitation_accepted").then(|| b["data"]["invitationId"].clone())
    });
    assert!(inv.unwrap().as_str().unwrap().starts_with("inv_"));
    // Nothing in bob's own partition: the organization's events are not his.
    assert!(events::list(&a.ciam, &bob_id).await.unwrap().is_empty());

    // The owner removes bob: member_removed, once, with the role he had.
    let p = format!("/org/{org}/members/{bob_id}");
    a.admin_call(Method::DELETE, &p, Some(&w.user), None)
        .await
        .ok(200);
    assert_eq!(
        deliver(a, &org, &mut seen).await,
        vec![Kind::OrgMemberRemoved]
    );
    assert_eq!(
        types(&heard),
        [
            "organization.invitation_accepted",
            "organization.member_added",
            "organization.member_removed"
        ]
    );
    let removed = heard.lock().unwrap().last().unwrap().1.clone();
    assert_eq!(removed["data"]["userId"], bob_id.as_str());
    assert_eq!(removed["data"]["role"], "member");
    // Nothing again: each event was delivered once.
    assert_eq!(deliver(a, &org, &mut seen).await, vec![]);
    assert_eq!(heard.lock().unwrap().len(), 3);
    // The app not in eventApps heard nothing, though bob consented to it.
    assert!(types(&unheard).is_empty(), "{:?}", types(&unheard));

    // The console revokes a pending invitation with a reason: its link is refused, the slice
    // and the console's log say so; a second revocation finds nothing pending.
    let p = format!("/admin/organizations/{org}/invitations");
    let b = json!({ "reason": "wrong address", "to": "dan@example.com" });
    let inv = a
        .admin_call(Method::POST, &p, Some(&w.admin), Some(&b))
        .await
        .ok(201)["invId"]
        .as_str()
        .unwrap()
        .to_owned();
    let token = a.invitation_for("dan@example.com");
    let revoke = format!("{p}/{inv}");
    let b = json!({ "reason": "sent to the wrong address" });
    a.admin_call(Method::DELETE, &revoke, Some(&w.admin), Some(&b))
        .await
        .ok(200);
    let again = a
        .admin_call(Method::DELETE, &revoke, Some(&w.admin), Some(&b))
        .await;
    assert_eq!(again.json()["reason"], "ORG_INVITATION_NOT_FOUND");
    a.sign_up("dan", "dan@example.com").await;
    let dan = a.sign_in("dan@example.com", PASSWORD).await;
    let b = json!({ "token": token });
    let refused = a
        .send_json(Method::POST, "/org/invitations/accept", Some(&dan), &b)
        .await;
    assert_eq!(refused.json()["reason"], "ORG_INVITATION_REVOKED");
    let page = a
        .admin_call(
            Method::GET,
            &format!("/admin/organizations/{org}"),
            Some(&w.admin),
            None,
        )
        .await
        .ok(200);
    let entry = page["audit"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["action"] == "invitation.revoke")
        .cloned()
        .expect("the slice's entry");
    assert_eq!(entry["reason"], "sent to the wrong address");
    assert_eq!(entry["target"], inv.as_str());
}

#[tokio::test]
async fn an_organizations_events_reach_only_its_event_apps() {
    heard_by_event_apps_only(TestApp::spawn().await).await;
}

#[tokio::test]
async fn on_dynamodb_an_organizations_events_reach_only_its_event_apps() {
    let local = Arc::new(DynamoLocal::start().await);
    heard_by_event_apps_only(TestApp::on_dynamo(&local, "org_events").await).await;
}
