//! Linked ways in (docs/federation-design.md §4.3, §4.4), driven with the test-only `mock`
//! provider against ciam-fakes' `mock` platform: the security centre lists, links (a fresh
//! proof, the provider's round trip back to the secure page, the confirmation from the same
//! session and browser) and unlinks, never the last way in; the console lists the links masked
//! and unlinks one with a reason and an audit entry; each change writes its activity entry and
//! notice, and its partner event only for an account with a consent; a store failure is a 503
//! with nothing half-written; the round trips each handler states. On SQLite and DynamoDB Local.

use crate::apps::world_on;
use crate::faults::app_with_config;
use crate::helpers::federation::{
    activity_kinds, fakes, last_notice, link_of, mock_base, navigate, next_person, no_redirects,
    query_param, with_mock,
};
use crate::helpers::{request_as, TestApp, TestResponse, PASSWORD};
use crate::unavailable::assert_retry_later;
use axum::body::Body;
use axum::http::Method;
use ciam_core::console::Role;
use ciam_core::events::{self, Kind};
use ciam_core::notifier::Notice;
use ciam_core::staff::bind_hash;
use ciam_core::user::profile_key;
use ciam_core::Config;
use ciam_store::dynamo_local::DynamoLocal;
use ciam_store::faults::{Fault, Faults, Op};
use ciam_store::{Key, Store, Update};
use serde_json::{json, Value};
use std::sync::Arc;

const ANN: &str = "13800138011";
const BOB: &str = "13800138012";
const NEW: &str = "13800138013";

/// One browser's random `bind`.
fn bind(name: &str) -> String {
    format!("{name}-bind-0123456789abcdef0123456789abcdef")
}

/// The platform approves at `url` (the provider's authorization URL): the callback's path and
/// query.
async fn approve(url: &str) -> String {
    let res = no_redirects().get(url).send().await.expect("platform");
    assert_eq!(res.status(), 302, "{url}");
    let back =
        url::Url::parse(res.headers()["location"].to_str().expect("location")).expect("absolute");
    format!("{}?{}", back.path(), back.query().unwrap_or(""))
}

async fn call(app: &TestApp, method: Method, p: &str, token: &str, body: &Value) -> TestResponse {
    app.send_json(method, p, Some(token), body).await
}

async fn identities(app: &TestApp, token: &str) -> Value {
    app.get("/auth/identities", Some(token)).await.ok(200)
}

async fn start_link(app: &TestApp, token: &str, browser: &str) -> TestResponse {
    let body = json!({ "provider": "mock", "bindHash": bind_hash(&bind(browser)) });
    call(app, Method::POST, "/auth/identities/link", token, &body).await
}

/// The whole round trip of a link from the security centre: where the callback sent the
/// browser (the secure page).
async fn link_round_trip(app: &TestApp, token: &str, browser: &str) -> String {
    let started = start_link(app, token, browser).await.ok(200);
    let callback = approve(started["url"].as_str().expect("url")).await;
    assert!(
        callback.starts_with("/ciam/v1/auth/mock/callback?"),
        "{callback}"
    );
    let location = navigate(app, &callback).await;
    assert!(
        location.contains("/personal/secure?"),
        "a link comes back to the secure page: {location}"
    );
    location
}

/// A link's round trip that ends with a pending link: its token.
async fn pending_link(app: &TestApp, token: &str, browser: &str) -> String {
    let location = link_round_trip(app, token, browser).await;
    query_param(&location, "mockLink").unwrap_or_else(|| panic!("no mockLink: {location}"))
}

async fn confirm(app: &TestApp, token: &str, link: &str, browser: &str) -> TestResponse {
    let body = json!({ "provider": "mock", "token": link, "bind": bind(browser) });
    call(app, Method::POST, "/auth/identities/confirm", token, &body).await
}

async fn delete(app: &TestApp, p: &str, token: &str) -> TestResponse {
    let req = request_as(Method::DELETE, p, Some(token))
        .body(Body::empty())
        .expect("request");
    app.call(req).await
}

async fn unlink(app: &TestApp, token: &str) -> TestResponse {
    delete(app, "/auth/identities/mock", token).await
}

async fn links_count(app: &TestApp, user_id: &str) -> i64 {
    app.user_item(user_id)
        .await
        .and_then(|i| i.n("links"))
        .unwrap_or(0)
}

/// A session `seconds` later has no fresh proof any more.
fn later(app: &TestApp, seconds: i64) {
    app.clock.advance(seconds);
}

// ---- the journeys, each on both engines ----

async fn a_customer_links_and_unlinks_a_provider_from_the_security_centre(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let ann = app.sign_up("ann", ANN).await;
    let token = app.sign_in(ANN, PASSWORD).await;
    let listed = identities(&app, &token).await;
    assert_eq!(listed, json!({ "identities": [], "available": ["mock"] }));

    // Without a fresh proof: REAUTH_REQUIRED, nothing stored.
    later(&app, 301);
    start_link(&app, &token, "b1")
        .await
        .error(403, "REAUTH_REQUIRED");
    unlink(&app, &token).await.error(403, "REAUTH_REQUIRED");
    app.fresh_proof(&token).await;

    next_person(&fakes, "sub-ann-1").await;
    let link = pending_link(&app, &token, "b1").await;
    assert_eq!(
        link_of(&app, "mock", "sub-ann-1").await,
        None,
        "not before the confirmation"
    );
    // A sign-in's phone proof cannot use a pending link.
    let code = app.fresh_code(ANN, "link").await;
    let body = json!({ "pending": link, "bind": bind("b1"), "phone": ANN, "code": code });
    app.send_json(Method::POST, "/auth/federation/phone", None, &body)
        .await
        .error(401, "AUTHORIZATION_FAILED");
    // Another session of the same account, or another browser: refused, the link kept.
    let other = app.sign_in(ANN, PASSWORD).await;
    confirm(&app, &other, &link, "b1")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    confirm(&app, &token, &link, "thief")
        .await
        .error(401, "AUTHORIZATION_FAILED");
    assert_eq!(link_of(&app, "mock", "sub-ann-1").await, None);
    confirm(&app, &token, &link, "b1").await.ok(200);
    assert_eq!(
        link_of(&app, "mock", "sub-ann-1").await.as_deref(),
        Some(ann.as_str())
    );
    assert_eq!(links_count(&app, &ann).await, 1);
    // Used up.
    confirm(&app, &token, &link, "b1")
        .await
        .error(401, "AUTHORIZATION_FAILED");

    let listed = identities(&app, &token).await;
    assert_eq!(listed["available"], json!([]));
    let linked = &listed["identities"][0];
    assert_eq!(linked["provider"], "mock");
    assert_eq!(linked["name"], "Zhang");
    assert_eq!(linked["linkedAt"], app.now());
    assert!(linked.get("subject").is_none(), "{linked}");
    assert!(activity_kinds(&app, &token)
        .await
        .contains(&("identityLinked".to_owned(), Some("mock".to_owned()))));
    assert_eq!(
        last_notice(&app),
        Some(Notice::IdentityLinked {
            provider: "mock".into()
        })
    );
    // Linked already: refused before leaving for the platform.
    start_link(&app, &token, "b1")
        .await
        .error(409, "FEDERATION_LINK_EXISTS");

    // The link signs in.
    let start = format!(
        "/ciam/v1/auth/mock/start?lang=en-US&bindHash={}",
        bind_hash(&bind("b1"))
    );
    let at_platform = navigate(&app, &start).await;
    let location = navigate(&app, &approve(&at_platform).await).await;
    let code = query_param(&location, "mockCode").unwrap_or_else(|| panic!("{location}"));
    let body = json!({ "provider": "mock", "code": code, "bind": bind("b1") });
    let signed_in = app
        .send_json(Method::POST, "/auth/login/federation", None, &body)
        .await
        .ok(200);
    assert_eq!(signed_in["userId"], ann.as_str());

    // Removed: the subject is new again; the password and phone remain ways in.
    unlink(&app, &token).await.ok(200);
    assert_eq!(link_of(&app, "mock", "sub-ann-1").await, None);
    assert_eq!(links_count(&app, &ann).await, 0);
    assert_eq!(identities(&app, &token).await["identities"], json!([]));
    assert!(activity_kinds(&app, &token)
        .await
        .contains(&("identityUnlinked".to_owned(), Some("mock".to_owned()))));
    assert_eq!(
        last_notice(&app),
        Some(Notice::IdentityUnlinked {
            provider: "mock".into()
        })
    );
    unlink(&app, &token).await.error(400, "INVALID_PARAMETER");
    // Staff is the company's to manage.
    delete(&app, "/auth/identities/staff", &token)
        .await
        .error(400, "INVALID_PARAMETER");
}

#[tokio::test]
async fn a_customer_links_and_unlinks_a_provider_from_the_security_centre_on_sqlite() {
    a_customer_links_and_unlinks_a_provider_from_the_security_centre(TestApp::spawn().await).await;
}

#[tokio::test]
async fn a_customer_links_and_unlinks_a_provider_from_the_security_centre_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "identities_centre").await;
    a_customer_links_and_unlinks_a_provider_from_the_security_centre(app).await;
}

async fn a_subject_linked_to_another_account_is_refused_and_the_last_way_in_stays(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    // A new subject signs up through the provider: its ways in are the link and the phone.
    next_person(&fakes, "sub-new").await;
    let start = format!(
        "/ciam/v1/auth/mock/start?lang=en-US&bindHash={}",
        bind_hash(&bind("b2"))
    );
    let location = navigate(&app, &approve(&navigate(&app, &start).await).await).await;
    let pending = query_param(&location, "mockPending").unwrap_or_else(|| panic!("{location}"));
    let code = app.fresh_code(NEW, "link").await;
    let body = json!({ "pending": pending, "bind": bind("b2"), "phone": NEW, "code": code });
    app.send_json(Method::POST, "/auth/federation/phone", None, &body)
        .await
        .ok(202);
    let body = json!({ "pending": pending, "bind": bind("b2"), "userName": "zhang",
        "company": "Acme Industrial", "country": "CN", "acceptTerms": true });
    let signed_up = app
        .send_json(Method::POST, "/auth/federation/register", None, &body)
        .await
        .ok(200);
    let zhang = signed_up["userId"].as_str().expect("userId").to_owned();
    let zhang_token = signed_up["token"].as_str().expect("token").to_owned();

    // Bob links the same subject: refused at the callback, back on the secure page.
    app.sign_up("bob", BOB).await;
    let bob = app.sign_in(BOB, PASSWORD).await;
    let location = link_round_trip(&app, &bob, "b3").await;
    assert_eq!(
        query_param(&location, "mockLinkError").as_deref(),
        Some("FEDERATION_LINK_EXISTS"),
        "{location}"
    );
    assert_eq!(
        link_of(&app, "mock", "sub-new").await.as_deref(),
        Some(zhang.as_str())
    );

    // Zhang's account loses its phone (no route does this today): the link is its last way
    // in, and neither the customer nor the support desk may remove it.
    app.store
        .update(
            &profile_key(&zhang),
            vec![Update::Remove("phone".into())],
            None,
        )
        .await
        .expect("remove the phone");
    unlink(&app, &zhang_token)
        .await
        .error(409, "FEDERATION_LAST_WAY_IN");
    let operator = app.staffer("desk", Some(Role::Operator)).await.1;
    let p = format!("/admin/accounts/{zhang}/unlink-identity");
    let body = json!({ "provider": "mock", "reason": "the customer asked by phone" });
    app.admin_call(Method::POST, &p, Some(&operator), Some(&body))
        .await
        .error(409, "FEDERATION_LAST_WAY_IN");
    assert_eq!(
        link_of(&app, "mock", "sub-new").await.as_deref(),
        Some(zhang.as_str())
    );
    assert_eq!(links_count(&app, &zhang).await, 1);
}

#[tokio::test]
async fn a_subject_linked_to_another_account_is_refused_and_the_last_way_in_stays_on_sqlite() {
    a_subject_linked_to_another_account_is_refused_and_the_last_way_in_stays(
        TestApp::spawn().await,
    )
    .await;
}

#[tokio::test]
async fn a_subject_linked_to_another_account_is_refused_and_the_last_way_in_stays_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "identities_last").await;
    a_subject_linked_to_another_account_is_refused_and_the_last_way_in_stays(app).await;
}

async fn support_sees_the_links_masked_and_unlinks_one_with_a_reason(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let ann = app.sign_up("ann", ANN).await;
    let token = app.sign_in(ANN, PASSWORD).await;
    next_person(&fakes, "oK3xAbCdEfGh9Q").await;
    let link = pending_link(&app, &token, "b4").await;
    confirm(&app, &token, &link, "b4").await.ok(200);

    let (operator_id, operator) = app.staffer("desk", Some(Role::Operator)).await;
    let page = app
        .admin_get(&format!("/admin/accounts/{ann}"), &operator)
        .await
        .ok(200);
    assert_eq!(page["identities"][0]["provider"], "mock");
    assert_eq!(page["identities"][0]["subjectMasked"], "oK3x…9Q");
    assert!(!page.to_string().contains("oK3xAbCdEfGh9Q"), "{page}");

    let p = format!("/admin/accounts/{ann}/unlink-identity");
    app.admin_call(
        Method::POST,
        &p,
        Some(&operator),
        Some(&json!({ "provider": "mock", "reason": "  " })),
    )
    .await
    .error(400, "INVALID_PARAMETER");
    let (_, viewer) = app.staffer("viewer", Some(Role::Viewer)).await;
    let body = json!({ "provider": "mock", "reason": "the customer lost the phone with WeChat" });
    app.admin_call(Method::POST, &p, Some(&viewer), Some(&body))
        .await
        .error(403, "PERMISSION_DENIED");
    assert_eq!(
        link_of(&app, "mock", "oK3xAbCdEfGh9Q").await.as_deref(),
        Some(ann.as_str())
    );
    app.admin_call(Method::POST, &p, Some(&operator), Some(&body))
        .await
        .ok(200);
    assert_eq!(link_of(&app, "mock", "oK3xAbCdEfGh9Q").await, None);
    assert_eq!(links_count(&app, &ann).await, 0);
    let day = app.today();
    let audit = app
        .admin_get(
            &format!("/admin/audit?from={day}&to={day}&action=account.unlinkIdentity"),
            &operator,
        )
        .await
        .ok(200);
    let entries = audit["entries"].as_array().expect("entries");
    assert_eq!(entries.len(), 1, "{entries:?}");
    assert_eq!(entries[0]["actor"], operator_id.as_str());
    assert_eq!(entries[0]["target"], ann.as_str());
    assert_eq!(
        entries[0]["reason"],
        "the customer lost the phone with WeChat"
    );
    assert_eq!(entries[0]["detail"], "provider: mock");
    assert!(activity_kinds(&app, &token).await.contains(&(
        "identityUnlinkedBySupport".to_owned(),
        Some("mock".to_owned())
    )));
    assert_eq!(
        last_notice(&app),
        Some(Notice::IdentityUnlinkedBySupport {
            provider: "mock".into()
        })
    );
    // Nothing left to unlink: nothing changes, the act is recorded, the customer not told.
    let notices = app.outbox.notices().len();
    app.admin_call(Method::POST, &p, Some(&operator), Some(&body))
        .await
        .ok(200);
    let audit = app
        .admin_get(
            &format!("/admin/audit?from={day}&to={day}&action=account.unlinkIdentity"),
            &operator,
        )
        .await
        .ok(200);
    let details: Vec<&str> = audit["entries"]
        .as_array()
        .expect("entries")
        .iter()
        .filter_map(|e| e["detail"].as_str())
        .collect();
    assert!(
        details.contains(&"provider: mock; nothing to change"),
        "{details:?}"
    );
    assert_eq!(app.outbox.notices().len(), notices);
}

#[tokio::test]
async fn support_sees_the_links_masked_and_unlinks_one_with_a_reason_on_sqlite() {
    support_sees_the_links_masked_and_unlinks_one_with_a_reason(TestApp::spawn().await).await;
}

#[tokio::test]
async fn support_sees_the_links_masked_and_unlinks_one_with_a_reason_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "identities_console").await;
    support_sees_the_links_masked_and_unlinks_one_with_a_reason(app).await;
}

async fn partners_hear_of_a_link_only_with_a_consent(app: TestApp) {
    let fakes = fakes().await;
    let app = with_mock(app, &fakes).await;
    let w = world_on(app).await;
    let (app, token, uid) = (&w.app, w.user.clone(), w.user_id.clone());
    next_person(&fakes, "sub-heard").await;

    // No consent yet: the link writes no event.
    let link = pending_link(app, &token, "b5").await;
    confirm(app, &token, &link, "b5").await.ok(200);
    unlink(app, &token).await.ok(200);
    let kinds = |all: Vec<events::Event>| all.iter().map(|e| e.kind).collect::<Vec<_>>();
    assert_eq!(
        kinds(events::list(&app.ciam, &uid).await.expect("events")),
        vec![]
    );

    // With a consent: linked, then unlinked; the provider's name, never the subject.
    app.issue_ticket(&token, &w.app_id, crate::apps::SERVICE)
        .await
        .ok(200);
    let link = pending_link(app, &token, "b5").await;
    confirm(app, &token, &link, "b5").await.ok(200);
    unlink(app, &token).await.ok(200);
    let all = events::list(&app.ciam, &uid).await.expect("events");
    assert_eq!(
        kinds(all.clone()),
        vec![Kind::IdentityChanged, Kind::IdentityChanged]
    );
    let scopes = vec!["nickname".to_owned()];
    let mut heard: Vec<Value> = all
        .iter()
        .map(|e| e.payload_for(&w.app_id, &scopes).expect("heard")["data"].clone())
        .collect();
    heard.sort_by_key(|d| d["linked"].as_bool());
    assert_eq!(
        heard,
        vec![
            json!({ "provider": "mock", "linked": false, "userId": uid }),
            json!({ "provider": "mock", "linked": true, "userId": uid }),
        ]
    );
    assert!(!format!("{all:?}").contains("sub-heard"));
}

#[tokio::test]
async fn partners_hear_of_a_link_only_with_a_consent_on_sqlite() {
    partners_hear_of_a_link_only_with_a_consent(TestApp::spawn().await).await;
}

#[tokio::test]
async fn partners_hear_of_a_link_only_with_a_consent_on_dynamodb() {
    let local = Arc::new(DynamoLocal::start().await);
    let app = TestApp::on_dynamo(&local, "identities_events").await;
    partners_hear_of_a_link_only_with_a_consent(app).await;
}

#[tokio::test]
async fn a_store_failure_is_503_and_leaves_nothing_half_written() {
    let fakes = fakes().await;
    let faults = Faults::new();
    let config = Config {
        mock_provider: Some(mock_base(&fakes)),
        ..Config::default()
    };
    let app = app_with_config(&faults, config).await;
    let ann = app.sign_up("ann", ANN).await;
    let token = app.sign_in(ANN, PASSWORD).await;
    next_person(&fakes, "sub-fault").await;
    let link = pending_link(&app, &token, "b6").await;
    let activity_before = activity_kinds(&app, &token).await.len();

    // The link's transaction fails: 503, nothing linked, no entry; the same confirmation works.
    faults.inject(Op::Transact, Fault::Throttling, 1);
    assert_retry_later(&confirm(&app, &token, &link, "b6").await);
    assert_eq!(link_of(&app, "mock", "sub-fault").await, None);
    assert_eq!(links_count(&app, &ann).await, 0);
    assert_eq!(activity_kinds(&app, &token).await.len(), activity_before);
    confirm(&app, &token, &link, "b6").await.ok(200);
    assert_eq!(
        link_of(&app, "mock", "sub-fault").await.as_deref(),
        Some(ann.as_str())
    );

    // The unlink's transaction fails: 503, the link whole; then it goes through.
    let notices = app.outbox.notices().len();
    faults.inject(Op::Transact, Fault::Throttling, 1);
    assert_retry_later(&unlink(&app, &token).await);
    assert_eq!(
        link_of(&app, "mock", "sub-fault").await.as_deref(),
        Some(ann.as_str())
    );
    assert_eq!(links_count(&app, &ann).await, 1);
    assert_eq!(
        app.outbox.notices().len(),
        notices,
        "no notice of a change not made"
    );
    let account_link = Key::new(format!("USER#{ann}"), "FED#mock");
    assert!(app.store.get(&account_link).await.expect("get").is_some());
    unlink(&app, &token).await.ok(200);
    assert_eq!(link_of(&app, "mock", "sub-fault").await, None);
}

/// The operations the store saw since the last look, in order.
fn calls(app: &TestApp) -> Vec<&'static str> {
    app.store
        .take_calls()
        .into_iter()
        .map(|(op, _)| op)
        .collect()
}

#[tokio::test]
async fn the_security_centre_s_routes_make_the_round_trips_their_doc_comments_state() {
    let fakes = fakes().await;
    let app = with_mock(TestApp::spawn().await, &fakes).await;
    app.sign_up("ann", ANN).await;
    let token = app.sign_in(ANN, PASSWORD).await;
    next_person(&fakes, "sub-count").await;
    calls(&app);

    identities(&app, &token).await;
    assert_eq!(
        calls(&app),
        ["get_many", "query"],
        "list: 2 (authentication, one query)"
    );
    let started = start_link(&app, &token, "b7").await.ok(200);
    assert_eq!(
        calls(&app),
        ["get_many", "get", "put"],
        "link: 3 (authentication, the account's link of that provider, the state)"
    );
    let callback = approve(started["url"].as_str().expect("url")).await;
    let location = navigate(&app, &callback).await;
    let link = query_param(&location, "mockLink").expect("mockLink");
    calls(&app);
    confirm(&app, &token, &link, "b7").await.ok(200);
    assert_eq!(
        calls(&app),
        ["get_many", "get", "transact"],
        "confirm: 3 (authentication, the pending link, the transaction)"
    );
    unlink(&app, &token).await.ok(200);
    assert_eq!(
        calls(&app),
        ["get_many", "get", "transact"],
        "unlink: 3 (authentication, the account's link, the transaction)"
    );
}
